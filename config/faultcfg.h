/* faultcfg — reading a scenario's optional "failures" and "health" keys
 * and the "fail", "node_join" and "node_leave" entries of its "events"
 * array into a struct fault_cfg (sim/fault.h; docs/scenario.md
 * "failures", "health" and "events"). An internal header of traces/:
 * json_t stays in this layer.
 *
 *   "failures": {"migrate": "checkpointed",
 *                "node_crash": {"mtbf_h": 2000, "repair_h": 4},
 *                "gpu_degrade": {"weibull": {"shape": 0.8, "scale_h": 5000}, "value": 0.6}},
 *   "health": {"fail_jobs": 3, "fail_window_h": 1, "flaps": 3, "flap_window_h": 24,
 *              "min_gpu_speed": 0.8, "max_nic_loss": 0.01, "smart": true},
 *   "events": [{"at": "2d", "fail": "gpu_degrade", "node": "r1-n3", "gpu": 0,
 *               "value": 0.5, "repair_h": 12},
 *              {"at": "3d", "node_join": {"rack": "new1", "power_kw": 15, "cooling": "air",
 *                                         "type": "h100x8", "count": 2}},
 *              {"at": "5d", "node_leave": "r1-n2"}]
 *
 * Every key is optional. "health" being present turns the monitor on.
 * Other kinds of "events" entry (approvals, environment events) are
 * skipped: config/orgcfg.c and config/powercfg.c read them.
 *
 * A node_join entry appends a new rack holding `count` nodes of a node
 * type to the cluster as it is loaded, and one FEV_JOIN event per new node
 * (the engine keeps the nodes absent until then). So fault_load runs after
 * the scenario's racks are added and before cluster_finish. Node names
 * ("<rack>-n<k>") are resolved against the cluster, joined nodes included.
 *
 * Errors name the JSON path ($.failures.nic.mtbf_h, $.events[3].node) and
 * what was expected; an unknown fault kind lists the kinds, an unknown
 * node some of the cluster's names, an unknown node type the types.
 * Nothing is half-written: on error *c is the defaults again (no events)
 * and the racks and nodes added for node_join are taken back off. */
#ifndef HL_FAULTLOAD_H
#define HL_FAULTLOAD_H

#include <jansson.h>
#include "sim/cluster.h"
#include "sim/fault.h"
#include "config/jv.h"

#define FAULT_EVENTS_MAX 100000        /* entries of "events" (as ORG_EVENTS_MAX) */
#define FAULT_JOIN_NODES_MAX 1000000   /* nodes added by all node_join entries together */

/* Reads root.failures, root.health and the fault entries of root.events
 * (root is the scenario object) into *c, which it initialises
 * (fault_cfg_init) first, and adds the node_join racks and nodes to cl.
 * c->ev comes out in time order, ties in file order except that a join
 * comes before any other event at the same time. Events:
 *   FEV_FAULT  fault = kind, node, gpu (the GPU kinds; -1 for the others),
 *              value (the kind's default when not given; 0 for kinds
 *              without one), repair_s (-1: the kind's repair time);
 *   FEV_JOIN   one per joined node: node, fault -1, gpu -1, repair_s -1;
 *   FEV_LEAVE  node, fault -1, gpu -1, repair_s -1.
 * A fault or leave on a joined node must not come before its join, a
 * node leaves at most once, and no fault is injected into a node after
 * it has left. 0, or -1 with v failed; fault_cfg_fini(c) after either. */
int fault_load(struct jv *v, struct cluster *cl, const json_t *root, struct fault_cfg *c);

#endif
