/* tiered — the design note's policy as one configurable queue discipline:
 * three tiers on one cluster, each with its own rule (docs/policies.md
 * "tiered").
 *
 * - Online inference (class inference) is placed first in every pass, on
 *   the nodes bound to it first, then anywhere; it alone may use the
 *   capacity reserved for it. When it cannot be placed it may preempt
 *   offline and dev work (fewest victims, by class order, priority, then
 *   least work lost; never a job younger than preempt_exempt_s; a gang is
 *   taken whole or not at all).
 * - Offline work (training, batch) is a fair-share queue ordered by the
 *   multifactor priority (policies/prio.h) with EASY backfilling; it never
 *   preempts and never takes reserved capacity.
 * - Dev jobs fill what is left once no other pending job fits, under a
 *   per-tenant GPU cap and a runtime limit; they are the first victims.
 * Every class is held for quota (decide_hold "quota") when its tenant's or
 * project's usage over the quota window, plus its estimate, would exceed
 * the org's quota.
 *
 * Its configuration is struct tiered_cfg (sim/tiercfg.h), the scenario's
 * "tiered" block; NULL in policy_env.tiered means the defaults: no
 * reservation, victim order dev, batch, training, no dev limits. */
#ifndef HL_TIERED_H
#define HL_TIERED_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/simtime.h"
#include "sim/tiercfg.h"

struct policy_ops;
extern const struct policy_ops policy_tiered;

#endif
