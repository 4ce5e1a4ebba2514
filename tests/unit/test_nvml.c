/* nvml: live mode's NVML probe (live/nvml) absent and through a fake
 * libnvidia-ml built here from tests/data/fake_nvml.c: every reading of
 * both fake GPUs (MIG devices and instance placements included), builds
 * that lack entry points, a session over several reads (XID and ECC
 * events, counters that reset, GPU-instance lookups refused to non-root),
 * nvml_mig_at on a GPU built by hand, and the clock-reason names. The host probes and `hetlab probe
 * --json` are tests/unit/test_probe.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/nvml.h"
#include "tests/testutil.h"
#include "tests/unit/probe_fixture.h"

/* ---- NVML ---------------------------------------------------------------------- */

static void test_nvml_absent(void **state)
{
	(void)state;
	struct nvml_probe *p = calloc(1, sizeof *p);
	assert_non_null(p);
	nvml_probe_read("/nonexistent/libnvidia-ml.so.1", p);
	assert_false(p->loaded);
	assert_int_equal(p->ngpus, 0);
	assert_int_equal(p->ninfo, 1);
	assert_string_equal(p->info[0], "no NVIDIA driver (/nonexistent/libnvidia-ml.so.1 not found): no GPUs");

	/* the default name: on a host without a driver, the one line of the brief */
	nvml_probe_read(NULL, p);
	if (!p->loaded && p->ninfo == 1 && strstr(p->info[0], "not found")) {
		assert_string_equal(p->info[0], "no NVIDIA driver (libnvidia-ml.so.1 not found): no GPUs");
		assert_int_equal(p->ngpus, 0);
	} else {
		print_message("  libnvidia-ml.so.1 present: %d GPUs\n", p->ngpus);
	}
	free(p);
}

static void check_gpu0(const struct nvml_gpu *a)
{
	assert_int_equal(a->index, 0);
	assert_string_equal(a->name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(a->uuid, "GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e01");
	assert_string_equal(a->pci_bus_id, "00000000:1B:00.0");
	assert_true(a->have_mem && a->mem_total_b == 85520809984ULL && a->mem_used_b == 1073741824ULL);
	assert_true(a->have_power && a->power_w == 312.456);
	assert_true(a->have_limit && a->limit_w == 700.0);
	assert_true(a->have_temp && a->temp_c == 61.0);
	assert_true(a->have_temp_slowdown && a->temp_slowdown_c == 89.0);
	assert_true(a->have_temp_shutdown && a->temp_shutdown_c == 92.0);
	assert_true(a->have_util && a->util_gpu_pct == 87 && a->util_mem_pct == 45);
	assert_true(a->have_mig && !a->mig_on && a->mig_pending_on);
	assert_int_equal(a->nmig, 0);
	assert_true(a->have_ecc_mode && a->ecc_on && a->ecc_pending_on);
	assert_true(a->have_ecc_volatile && a->ecc_unc_volatile == 0);
	assert_true(a->have_ecc_aggregate && a->ecc_unc_aggregate == 2);
	assert_true(a->have_retired && a->retired_sbe == 1 && a->retired_dbe == 2);
	assert_true(a->have_retired_pending && a->retired_pending);
	assert_true(a->have_remap && a->remap_corr == 3 && a->remap_unc == 1);
	assert_false(a->remap_pending || a->remap_failure);
}

static void check_gpu1(const struct nvml_gpu *b)
{
	assert_int_equal(b->index, 1);
	assert_string_equal(b->name, "NVIDIA A100-SXM4-40GB");
	assert_string_equal(b->uuid, "GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e02");
	assert_string_equal(b->pci_bus_id, "00000000:CA:00.0");
	assert_true(b->have_mem && b->mem_total_b == 42949672960ULL && b->mem_used_b == 0);
	assert_false(b->have_power);       /* NOT_SUPPORTED */
	assert_false(b->have_temp);
	assert_true(b->have_limit && b->limit_w == 400.0);
	assert_true(b->have_util && b->util_gpu_pct == 0);
	assert_true(b->have_temp_slowdown && b->temp_slowdown_c == 85.0);
	assert_false(b->have_temp_shutdown);
	assert_true(b->have_clock_reasons && b->clock_reasons == NVML_CLOCK_GPU_IDLE);
	/* ECC and everything about memory errors NOT_SUPPORTED: absent, not an error */
	assert_false(b->have_ecc_mode || b->have_ecc_volatile || b->have_ecc_aggregate);
	assert_false(b->have_retired || b->have_retired_pending || b->have_remap);
	/* MIG on: devices at indexes 0 and 2, 1 is empty */
	assert_true(b->have_mig && b->mig_on && b->mig_pending_on);
	assert_int_equal(b->nmig, 2);
	const struct nvml_mig *m0 = &b->mig[0], *m2 = &b->mig[1];
	assert_int_equal(m0->index, 0);
	assert_string_equal(m0->uuid, "MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a01");
	assert_true(m0->have_mem && m0->mem_total_b == 5100273664ULL && m0->mem_used_b == 0);
	assert_true(m0->have_attr && m0->gi_slices == 1 && m0->ci_slices == 1 && m0->sm_count == 14);
	assert_int_equal(m2->index, 2);
	assert_string_equal(m2->uuid, "MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a03");
	assert_true(m2->have_mem && m2->mem_total_b == 20937965568ULL && m2->mem_used_b == 13631488ULL);
	assert_true(m2->have_attr && m2->gi_slices == 3 && m2->ci_slices == 3 && m2->sm_count == 42);
	/* GPU- and compute-instance ids, read whether or not the placement is */
	assert_true(m0->have_gi_id && m0->gi_id == 11 && m0->have_ci_id && m0->ci_id == 0);
	assert_true(m2->have_gi_id && m2->gi_id == 1 && m2->have_ci_id && m2->ci_id == 0);
}

/* GPU 1's GPU-instance placements (in memory slices), and the MIG device
 * nvml_mig_at finds by start. The 3g.20gb takes 4 memory slices for its
 * 3 GPU-instance slices; MIG 0 sits after MIG 2 in memory. */
static void check_placement(const struct nvml_gpu *b)
{
	const struct nvml_mig *m0 = &b->mig[0], *m2 = &b->mig[1];
	assert_true(m0->have_placement && m0->profile_id == 19 && m0->place_start == 4 && m0->place_size == 1);
	assert_true(m2->have_placement && m2->profile_id == 9 && m2->place_start == 0 && m2->place_size == 4);
	assert_ptr_equal(nvml_mig_at(b, 0), m2);
	assert_ptr_equal(nvml_mig_at(b, 4), m0);
	/* inside an instance but not its start; free; past the GPU's 8 slices */
	static const unsigned none[] = { 1, 3, 5, 6, 7, 8, 4096 };
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
		assert_null(nvml_mig_at(b, none[i]));
}

/* Placement unknown: the rest of GPU 1 is read, and nothing is found by start. */
static void check_no_placement(const struct nvml_gpu *b)
{
	check_gpu1(b);
	for (int m = 0; m < b->nmig; m++)
		assert_false(b->mig[m].have_placement);
	assert_null(nvml_mig_at(b, 0));
	assert_null(nvml_mig_at(b, 4));
}

static void check_no_events(const struct nvml_gpu *g)
{
	assert_true(g->events_mask == 0);
	assert_int_equal(g->new_xids + g->new_dbe + g->new_sbe + g->health_events, 0);
	assert_int_equal(g->nxids, 0);
	assert_false(g->have_ecc_delta);
}

static void test_nvml_fake(void **state)
{
	(void)state;
	char *so = build_fake_nvml("");
	if (!so)
		skip();
	struct nvml_probe *p = calloc(1, sizeof *p);
	assert_non_null(p);
	nvml_probe_read(so, p);
	for (int i = 0; i < p->ninfo; i++)
		print_message("  info: %s\n", p->info[i]);
	assert_true(p->loaded);
	assert_int_equal(p->ninfo, 0);
	assert_int_equal(p->ndevices, 2);
	assert_int_equal(p->ngpus, 2);
	check_gpu0(&p->gpu[0]);
	assert_true(p->gpu[0].have_clock_reasons &&
	            p->gpu[0].clock_reasons == (NVML_CLOCK_SW_POWER_CAP | NVML_CLOCK_HW_THERMAL_SLOWDOWN));
	check_gpu1(&p->gpu[1]);
	check_placement(&p->gpu[1]);
	assert_null(nvml_mig_at(&p->gpu[0], 0));   /* MIG off */
	/* a one-shot read has no events */
	assert_false(p->events);
	check_no_events(&p->gpu[0]);
	check_no_events(&p->gpu[1]);
	unlink(so);
	free(so);
	free(p);
}

/* Builds that lack entry points: each missing one is absent readings, never an error. */
static void test_nvml_variants(void **state)
{
	(void)state;
	struct nvml_probe *p = calloc(1, sizeof *p);
	assert_non_null(p);

	char *so = build_fake_nvml("-DFAKE_NVML_NO_UTIL");
	if (!so)
		skip();
	nvml_probe_read(so, p);
	assert_true(p->loaded);
	assert_int_equal(p->ngpus, 2);
	assert_false(p->gpu[0].have_util || p->gpu[1].have_util);
	assert_true(p->gpu[1].have_mig && p->gpu[1].nmig == 2);
	assert_int_equal(p->ninfo, 1);
	assert_non_null(strstr(p->info[0], "lacks nvmlDeviceGetUtilizationRates: those readings are absent"));
	unlink(so);
	free(so);

	/* a driver before R535: the clock reasons come through the older name
	 * (whose fake answer has the display bit set too, to tell them apart) */
	so = build_fake_nvml("-DFAKE_NVML_OLD_DRIVER");
	assert_non_null(so);
	nvml_probe_read(so, p);
	assert_true(p->loaded);
	assert_int_equal(p->ninfo, 0);
	check_gpu0(&p->gpu[0]);
	assert_true(p->gpu[0].have_clock_reasons);
	assert_true(p->gpu[0].clock_reasons == (NVML_CLOCK_SW_POWER_CAP | NVML_CLOCK_HW_THERMAL_SLOWDOWN |
	                                        NVML_CLOCK_DISPLAY_CLOCK_SETTING));
	unlink(so);
	free(so);

	/* no nvmlGpuInstanceGetInfo: placements absent, the instance ids still read */
	so = build_fake_nvml("-DFAKE_NVML_NO_GI_INFO");
	assert_non_null(so);
	nvml_probe_read(so, p);
	assert_true(p->loaded);
	check_gpu0(&p->gpu[0]);
	check_no_placement(&p->gpu[1]);
	assert_int_equal(p->ninfo, 1);
	assert_non_null(strstr(p->info[0], "lacks nvmlGpuInstanceGetInfo: those readings are absent"));
	unlink(so);
	free(so);

	/* the four required entry points only */
	so = build_fake_nvml("-DFAKE_NVML_MINIMAL");
	assert_non_null(so);
	nvml_probe_read(so, p);
	assert_true(p->loaded);
	assert_int_equal(p->ngpus, 2);
	for (int i = 0; i < 2; i++) {
		const struct nvml_gpu *g = &p->gpu[i];
		assert_int_equal(g->index, i);
		assert_string_equal(g->name, "?");
		assert_string_equal(g->uuid, "");
		assert_string_equal(g->pci_bus_id, "");
		assert_false(g->have_mem || g->have_power || g->have_limit || g->have_temp || g->have_util);
		assert_false(g->have_temp_slowdown || g->have_temp_shutdown || g->have_clock_reasons || g->have_mig);
		assert_false(g->have_ecc_mode || g->have_ecc_volatile || g->have_retired || g->have_remap);
	}
	assert_int_equal(p->ninfo, 1);
	assert_non_null(strstr(p->info[0], "lacks nvmlDeviceGetName, nvmlDeviceGetUUID, "));
	assert_non_null(strstr(p->info[0], ": those readings are absent"));
	/* a session on it: no events, said in the same line */
	struct nvml_session *s;
	assert_int_equal(nvml_session_open(so, &s), 0);
	nvml_session_read(s, p);
	assert_true(p->loaded);
	assert_false(p->events);
	assert_int_equal(p->ngpus, 2);
	assert_int_equal(p->ninfo, 1);
	assert_non_null(strstr(p->info[0], "lacks nvmlDeviceGetName"));
	check_no_events(&p->gpu[0]);
	nvml_session_close(s);
	unlink(so);
	free(so);

	so = build_fake_nvml("-DFAKE_NVML_INIT_FAILS");
	assert_non_null(so);
	nvml_probe_read(so, p);
	assert_false(p->loaded);
	assert_int_equal(p->ngpus, 0);
	assert_int_equal(p->ninfo, 1);
	assert_string_equal(p->info[0], "nvmlInit_v2 failed (NVML error 9): no GPUs");
	unlink(so);
	free(so);
	free(p);
}

/* The fake's control functions, found in the .so the probe also opens. */
struct fake_ctl {
	void *dl;
	void (*reset)(void);
	int (*push)(unsigned, unsigned long long, unsigned long long);
	void (*set_ecc)(unsigned long long, unsigned long long);
	int (*live_sets)(void);
	int (*init_count)(void);
	void (*set_gi_error)(int);
};

static void fake_ctl_open(struct fake_ctl *c, const char *so)
{
	c->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(c->dl);
	void *f[6];
	static const char *const names[] = { "fake_nvml_reset", "fake_nvml_push_event", "fake_nvml_set_ecc",
	                                     "fake_nvml_live_sets", "fake_nvml_init_count", "fake_nvml_set_gi_error" };
	for (int i = 0; i < 6; i++)
		assert_non_null(f[i] = dlsym(c->dl, names[i]));
	memcpy(&c->reset, &f[0], sizeof f[0]);
	memcpy(&c->push, &f[1], sizeof f[1]);
	memcpy(&c->set_ecc, &f[2], sizeof f[2]);
	memcpy(&c->live_sets, &f[3], sizeof f[3]);
	memcpy(&c->init_count, &f[4], sizeof f[4]);
	memcpy(&c->set_gi_error, &f[5], sizeof f[5]);
	c->reset();
}

static void test_nvml_session(void **state)
{
	(void)state;
	char *so = build_fake_nvml("");
	if (!so)
		skip();
	struct fake_ctl c;
	fake_ctl_open(&c, so);
	struct nvml_probe *p = calloc(1, sizeof *p);
	assert_non_null(p);
	struct nvml_session *s;
	assert_int_equal(nvml_session_open(so, &s), 0);
	assert_non_null(s);
	assert_int_equal(c.init_count(), 1);
	assert_int_equal(c.live_sets(), 1);

	/* XID 79 (fallen off the bus) and a double-bit error (XID 48, the DBE
	 * event, the volatile counter 0 -> 1) on GPU 0; XID 13 on GPU 1; and
	 * what nobody registered for: a PState event, a DBE on GPU 1 */
	c.push(0, NVML_EV_XID, 79);
	c.push(0, NVML_EV_PSTATE, 0);
	c.push(0, NVML_EV_XID, 48);
	c.push(0, NVML_EV_DBE, 0);
	c.push(1, NVML_EV_DBE, 0);
	c.push(1, NVML_EV_XID, 13);
	c.set_ecc(1, 3);
	nvml_session_read(s, p);
	assert_true(p->loaded);
	assert_true(p->events);
	assert_int_equal(p->ninfo, 0);
	assert_int_equal(p->events_unmatched, 0);
	check_gpu1(&p->gpu[1]);
	const struct nvml_gpu *a = &p->gpu[0], *b = &p->gpu[1];
	assert_true(a->events_mask == (NVML_EV_XID | NVML_EV_DBE | NVML_EV_SBE));
	assert_true(b->events_mask == NVML_EV_XID);
	assert_int_equal(a->new_xids, 2);
	assert_int_equal(a->nxids, 2);
	assert_int_equal(a->last_xid[0], 79);
	assert_int_equal(a->last_xid[1], 48);
	assert_int_equal(a->new_dbe, 1);
	assert_int_equal(a->new_sbe, 0);
	assert_true(a->ecc_unc_volatile == 1 && a->ecc_unc_aggregate == 3);
	assert_true(a->have_ecc_delta && a->new_ecc_unc == 1);
	assert_int_equal(a->health_events, 3);          /* 2 XIDs + 1 uncorrected */
	assert_int_equal(b->new_xids, 1);
	assert_int_equal(b->last_xid[0], 13);
	assert_int_equal(b->new_dbe, 0);
	assert_false(b->have_ecc_delta);                /* ECC NOT_SUPPORTED */
	assert_int_equal(b->health_events, 1);

	/* a second read sees only what is new: nothing */
	nvml_session_read(s, p);
	assert_int_equal(a->new_xids + a->new_dbe + a->health_events, 0);
	assert_true(a->have_ecc_delta && a->new_ecc_unc == 0);
	assert_true(a->xids_total == 2 && a->dbe_total == 1);
	assert_int_equal(a->nxids, 2);                  /* the latest XIDs stay */
	assert_int_equal(b->new_xids + b->health_events, 0);
	assert_true(b->xids_total == 1);

	/* then nine XIDs on GPU 1 (the last eight kept, oldest first) and two
	 * uncorrected errors on GPU 0 with no event (the counter alone counts) */
	for (unsigned x = 31; x <= 39; x++)
		c.push(1, NVML_EV_XID, x);
	c.set_ecc(3, 5);
	nvml_session_read(s, p);
	assert_int_equal(a->new_xids, 0);
	assert_true(a->new_ecc_unc == 2);
	assert_int_equal(a->health_events, 2);
	assert_int_equal(b->new_xids, 9);
	assert_true(b->xids_total == 10);
	assert_int_equal(b->nxids, NVML_MAX_XIDS);
	for (int k = 0; k < NVML_MAX_XIDS; k++)
		assert_int_equal(b->last_xid[k], 32 + k);
	assert_int_equal(b->health_events, 9);

	/* a counter that falls was reset: it counts from 0 */
	c.set_ecc(1, 5);
	nvml_session_read(s, p);
	assert_true(a->new_ecc_unc == 1);
	assert_int_equal(a->health_events, 1);

	/* NVML lets only root look GPU instances up: anyone else gets
	 * NO_PERMISSION, and one info line for all MIG devices; the ids and
	 * every other reading are still read. Allowed again, they come back. */
	c.set_gi_error(4);
	nvml_session_read(s, p);
	check_no_placement(b);
	assert_int_equal(p->ninfo, 1);
	assert_string_equal(p->info[0], "nvmlDeviceGetGpuInstanceById failed (NVML error 4, no permission: "
	                                "NVML needs root for it): MIG devices' GPU-instance placement is absent");
	c.set_gi_error(0);
	nvml_session_read(s, p);
	check_placement(b);
	assert_int_equal(p->ninfo, 0);

	nvml_session_close(s);
	assert_int_equal(c.init_count(), 0);
	assert_int_equal(c.live_sets(), 0);
	nvml_session_close(NULL);

	/* absent library: a session that says so at every read */
	assert_int_equal(nvml_session_open("/nonexistent/libnvidia-ml.so.1", &s), 0);
	nvml_session_read(s, p);
	assert_false(p->loaded);
	assert_int_equal(p->ngpus, 0);
	assert_int_equal(p->ninfo, 1);
	assert_string_equal(p->info[0], "no NVIDIA driver (/nonexistent/libnvidia-ml.so.1 not found): no GPUs");
	nvml_session_close(s);

	c.reset();
	dlclose(c.dl);
	unlink(so);
	free(so);
	free(p);
}

/* nvml_mig_at on a GPU built by hand: a GPU instance split into two
 * compute instances has two MIG devices at one start, and neither is it. */
static void test_nvml_mig_at(void **state)
{
	(void)state;
	struct nvml_gpu *g = calloc(1, sizeof *g);
	assert_non_null(g);
	assert_null(nvml_mig_at(g, 0));                 /* no MIG devices */
	g->nmig = 4;
	for (int i = 0; i < 4; i++) {
		g->mig[i].index = (unsigned)i;
		g->mig[i].have_placement = true;
	}
	g->mig[0].place_start = 0, g->mig[0].place_size = 4;    /* 4g: two 2c compute instances */
	g->mig[1].place_start = 0, g->mig[1].place_size = 4;
	g->mig[2].place_start = 4, g->mig[2].place_size = 2;
	g->mig[3].place_start = 6, g->mig[3].place_size = 1;
	assert_null(nvml_mig_at(g, 0));
	assert_ptr_equal(nvml_mig_at(g, 4), &g->mig[2]);
	assert_ptr_equal(nvml_mig_at(g, 6), &g->mig[3]);
	assert_null(nvml_mig_at(g, 7));
	/* a placement not read does not count, even with a start of 0 */
	g->mig[1].have_placement = false;
	assert_ptr_equal(nvml_mig_at(g, 0), &g->mig[0]);
	g->mig[3].have_placement = false;
	assert_null(nvml_mig_at(g, 6));
	free(g);
}

static void test_nvml_clock_names(void **state)
{
	(void)state;
	char buf[256];
	assert_string_equal(nvml_clock_reasons_str(0, buf, sizeof buf), "none");
	assert_string_equal(nvml_clock_reasons_str(0x44, buf, sizeof buf), "sw_power_cap,hw_thermal_slowdown");
	assert_string_equal(nvml_clock_reasons_str(0x1ff, buf, sizeof buf),
	                    "gpu_idle,applications_clocks_setting,sw_power_cap,hw_slowdown,sync_boost,"
	                    "sw_thermal_slowdown,hw_thermal_slowdown,hw_power_brake_slowdown,display_clock_setting");
	assert_string_equal(nvml_clock_reasons_str(0x208, buf, sizeof buf), "hw_slowdown,0x200");
	assert_string_equal(nvml_clock_reasons_str(0x8000000000000000ULL, buf, sizeof buf), "0x8000000000000000");
	/* truncated at a whole name */
	assert_string_equal(nvml_clock_reasons_str(0x5, buf, 12), "gpu_idle");
	assert_string_equal(nvml_clock_reasons_str(0x5, buf, 22), "gpu_idle,sw_power_cap");
	assert_string_equal(nvml_clock_reasons_str(0x5, buf, 21), "gpu_idle");
	assert_string_equal(nvml_clock_reasons_str(0x5, buf, 1), "");
	assert_string_equal(nvml_clock_reason_name(0), "gpu_idle");
	assert_string_equal(nvml_clock_reason_name(8), "display_clock_setting");
	assert_null(nvml_clock_reason_name(9));
	assert_null(nvml_clock_reason_name(63));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvml_absent),
		cmocka_unit_test(test_nvml_fake),
		cmocka_unit_test(test_nvml_variants),
		cmocka_unit_test(test_nvml_session),
		cmocka_unit_test(test_nvml_mig_at),
		cmocka_unit_test(test_nvml_clock_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
