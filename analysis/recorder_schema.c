/* recorder_schema — the results file's tables, as the recorder creates
 * them (analysis/recorder.c); documented column by column in
 * docs/results.md, keep the two in step. */
#include "analysis/recorder_schema.h"

/* Version 2. A change that a reader of version 2 would misread bumps
 * RECORDER_SCHEMA_VERSION (docs/results.md, "Schema versions"). The job
 * table's seconds columns are computed from the exact microseconds when
 * they are read (generated columns: nothing stored twice). */
const char recorder_schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
	/* seed has no declared type, so that SQLite keeps a seed of 2^63 or
	 * more as TEXT digits instead of converting it to a lossy REAL. */
	"CREATE TABLE run("
	" scenario TEXT, policy TEXT, seed, version TEXT, trace TEXT,"
	" wall_s REAL, events INTEGER, passes INTEGER, jobs INTEGER,"
	" nodes INTEGER, total_cores INTEGER, total_gpus INTEGER,"
	" skipped_malformed INTEGER, skipped_unusable INTEGER, created TEXT,"
	" policy_params TEXT, rejected INTEGER, placement TEXT,"
	" it_energy_kwh REAL, facility_energy_kwh REAL, idle_energy_kwh REAL,"
	" energy_cost REAL, carbon_kg REAL, level TEXT, records INTEGER);\n"
	"CREATE TABLE job("
	" id INTEGER PRIMARY KEY, trace_id INTEGER, class TEXT, tenant INTEGER,"
	" grp INTEGER, queue INTEGER, state TEXT,"
	" submit_s REAL GENERATED ALWAYS AS (submit_us / 1e6) VIRTUAL,"
	" start_s REAL GENERATED ALWAYS AS (start_us / 1e6) VIRTUAL,"
	" end_s REAL GENERATED ALWAYS AS (end_us / 1e6) VIRTUAL,"
	" wait_s REAL GENERATED ALWAYS AS ((start_us - submit_us) / 1e6) VIRTUAL,"
	" run_s REAL GENERATED ALWAYS AS ((end_us - start_us) / 1e6) VIRTUAL,"
	" walltime_s REAL GENERATED ALWAYS AS (walltime_us / 1e6) VIRTUAL,"
	" nodes INTEGER, cores INTEGER, gpus INTEGER,"
	" mem_mib INTEGER, req_cores INTEGER, req_gpus INTEGER, node_list TEXT,"
	" preemptions INTEGER,"
	" submit_us INTEGER, start_us INTEGER, end_us INTEGER, walltime_us INTEGER,"
	" reason TEXT, gpu_model TEXT, gpu_share TEXT,"
	" gpu_s REAL, core_s REAL, lost_gpu_s REAL, ckpt_s REAL, held_s REAL, hold_why TEXT, restarts INTEGER,"
	" energy_j REAL, energy_cost REAL, qos INTEGER);\n"
	"CREATE TABLE event("
	" seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, kind TEXT NOT NULL,"
	" job INTEGER, node INTEGER, state TEXT, detail TEXT);\n"
	"CREATE TABLE node("
	" id INTEGER PRIMARY KEY, name TEXT NOT NULL, rack TEXT, type TEXT,"
	" cores INTEGER, gpus INTEGER, gpu_model TEXT, mem_mib INTEGER);\n"
	"CREATE TABLE sample("
	" t_us INTEGER NOT NULL, cores_alloc INTEGER, cores_total INTEGER,"
	" gpus_alloc INTEGER, gpus_total INTEGER, pending INTEGER, running INTEGER,"
	" power_w REAL, facility_w REAL, outside_c REAL);\n"
	"CREATE TABLE rack("
	" id INTEGER PRIMARY KEY, name TEXT NOT NULL, cap_w REAL, cooling TEXT, nodes INTEGER,"
	" peak_w REAL, warn_s REAL, over_s REAL, throttled_gpu_h REAL, energy_kwh REAL,"
	" facility_kwh REAL, cost REAL);\n"
	"CREATE TABLE rack_sample("
	" t_us INTEGER NOT NULL, rack INTEGER NOT NULL, power_w REAL, cap_w REAL, warn INTEGER,"
	" throttle REAL, temp_p50 REAL, temp_p95 REAL, temp_max REAL);\n";
