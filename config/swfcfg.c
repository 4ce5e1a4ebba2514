/* swfcfg — the scenario's "workload.swf" object; see swfcfg.h. */
#include "config/swfcfg.h"
#include "traces/swfext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = { "shape", "ppn", "exclusive", "memory", "memory_unit",
                                    "partitions", NULL };

int swf_shape_load(struct jv *v, const json_t *o, const char *p, struct swf_shape *sh)
{
	char shape[16] = "", mem[16] = "", unit[16] = "";
	long long ppn = 0;
	/* The Slurm fields may have been read already ("slurm"). */
	char pl[sizeof sh->partition_label], gl[sizeof sh->gpu_type_label], cl[sizeof sh->ctld_log];
	bool est = sh->estimate_preempted;
	memcpy(pl, sh->partition_label, sizeof pl);
	memcpy(gl, sh->gpu_type_label, sizeof gl);
	memcpy(cl, sh->ctld_log, sizeof cl);
	memset(sh, 0, sizeof *sh);
	memcpy(sh->partition_label, pl, sizeof pl);
	memcpy(sh->gpu_type_label, gl, sizeof gl);
	memcpy(sh->ctld_log, cl, sizeof cl);
	sh->estimate_preempted = est;
	if (jv_object(v, o, p, keys) || jv_str(v, o, p, "shape", false, shape, sizeof shape) ||
	    jv_int(v, o, p, "ppn", false, 1, 1 << 20, &ppn) ||
	    jv_bool(v, o, p, "exclusive", &sh->exclusive) ||
	    jv_str(v, o, p, "memory", false, mem, sizeof mem) ||
	    jv_str(v, o, p, "memory_unit", false, unit, sizeof unit))
		return -1;
	char q[256];
	if (!shape[0] || strcmp(shape, "cores") == 0)
		sh->kind = SWF_SHAPE_CORES;
	else if (strcmp(shape, "nodes") == 0)
		sh->kind = SWF_SHAPE_NODES;
	else {
		snprintf(q, sizeof q, "%s.shape", p);
		return jv_fail(v, q, "expected \"cores\" or \"nodes\", got \"%s\"", shape);
	}
	sh->ppn = (int32_t)ppn;
	if (sh->kind == SWF_SHAPE_NODES && sh->ppn <= 0) {
		snprintf(q, sizeof q, "%s.ppn", p);
		return jv_fail(v, q, "required with \"shape\": \"nodes\" (processors per node)");
	}
	if (sh->kind == SWF_SHAPE_CORES && (sh->ppn > 0 || sh->exclusive)) {
		snprintf(q, sizeof q, "%s", p);
		return jv_fail(v, q, "\"ppn\" and \"exclusive\" need \"shape\": \"nodes\"");
	}
	if (!mem[0] || strcmp(mem, "ignore") == 0)
		sh->mem = SWF_MEM_IGNORE;
	else if (strcmp(mem, "requested") == 0)
		sh->mem = SWF_MEM_REQUESTED;
	else if (strcmp(mem, "used") == 0)
		sh->mem = SWF_MEM_USED;
	else {
		snprintf(q, sizeof q, "%s.memory", p);
		return jv_fail(v, q, "expected \"ignore\", \"requested\" (field 10) or \"used\" "
		               "(field 7), got \"%s\"", mem);
	}
	if (unit[0]) {
		if (swfext_mem_unit_parse(unit, &sh->mem_unit) < 0) {
			snprintf(q, sizeof q, "%s.memory_unit", p);
			return jv_fail(v, q, "expected UNIT/PER, UNIT one of bytes, KB, MB, GB and PER one of "
			               "proc, node, job (the SWF spec's is \"KB/proc\"), got \"%s\"", unit);
		}
		sh->mem_unit_given = true;
	}
	const json_t *parts = json_object_get(o, "partitions");
	if (!parts)
		return 0;
	snprintf(q, sizeof q, "%s.partitions", p);
	if (!json_is_object(parts))
		return jv_fail(v, q, "expected an object mapping partition numbers (field 16) to "
		               "label expressions");
	const char *k;
	const json_t *e;
	json_object_foreach((json_t *)parts, k, e) {
		char kp[512];
		snprintf(kp, sizeof kp, "%s.%s", q, k);
		char *end;
		errno = 0;
		long long n = strtoll(k, &end, 10);
		if (!*k || *end || errno || n < 0)
			return jv_fail(v, kp, "expected a partition number >= 0 as the key");
		if (!json_is_string(e) || !json_string_value(e)[0] ||
		    strlen(json_string_value(e)) >= sizeof sh->part[0].expr)
			return jv_fail(v, kp, "expected a label expression of 1..%zu characters",
			               sizeof sh->part[0].expr - 1);
		if (sh->npart == SWF_MAX_PARTITIONS)
			return jv_fail(v, kp, "at most %d partitions", SWF_MAX_PARTITIONS);
		sh->part[sh->npart].partition = n;
		snprintf(sh->part[sh->npart].expr, sizeof sh->part[0].expr, "%s", json_string_value(e));
		sh->npart++;
	}
	return 0;
}

int slurm_labels_load(struct jv *v, const json_t *o, const char *p, struct swf_shape *sh)
{
	static const char *const skeys[] = { "partition_label", "gpu_type_label", "preempted_run", "ctld_log",
	                                     NULL };
	char run[16] = "";
	if (jv_object(v, o, p, skeys) ||
	    jv_str(v, o, p, "partition_label", false, sh->partition_label, sizeof sh->partition_label) ||
	    jv_str(v, o, p, "gpu_type_label", false, sh->gpu_type_label, sizeof sh->gpu_type_label) ||
	    jv_str(v, o, p, "preempted_run", false, run, sizeof run) ||
	    jv_str(v, o, p, "ctld_log", false, sh->ctld_log, sizeof sh->ctld_log))
		return -1;
	if (run[0] && strcmp(run, "elapsed") != 0 && strcmp(run, "estimate") != 0) {
		char q[256];
		snprintf(q, sizeof q, "%s.preempted_run", p);
		return jv_fail(v, q, "expected \"elapsed\" or \"estimate\", got \"%s\"", run);
	}
	sh->estimate_preempted = strcmp(run, "estimate") == 0;
	return 0;
}
