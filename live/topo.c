/* topo — see topo.h. hwloc 2.x: NUMA nodes are memory children of the
 * object whose CPUs are local to them, so a node's CPUs are its cpuset; I/O
 * objects are kept only with an I/O type filter, set here for both reads. */
#include "live/topo.h"

#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(struct topo *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct topo *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->err, sizeof t->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int package_of(hwloc_topology_t h, hwloc_obj_t o)
{
	hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, o);
	return p ? (int)p->logical_index : -1;
}

/* The node (index in t->numa[]) whose cpuset holds all of `cpus` with the
 * fewest CPUs: the most local one. -1 when none does. */
static int numa_of(hwloc_topology_t h, const struct topo *t, hwloc_const_cpuset_t cpus)
{
	int best = -1, best_w = 0;
	for (int i = 0; i < t->nnuma; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (!n || !n->cpuset || !hwloc_bitmap_isincluded(cpus, n->cpuset))
			continue;
		int w = hwloc_bitmap_weight(n->cpuset);
		if (best < 0 || w < best_w) {
			best = i;
			best_w = w;
		}
	}
	return best;
}

/* Adds a core made of `cpus` (a core object's, or one PU's when hwloc has no cores). */
static int add_core(hwloc_topology_t h, struct topo *t, hwloc_obj_t o, const char *what)
{
	if (t->ncores >= TOPO_MAX_CORES)
		return fail(t, "%s: more than %d cores", what, TOPO_MAX_CORES);
	struct topo_core *c = &t->core[t->ncores++];
	c->os_index = (int)o->os_index;
	c->package = package_of(h, o);
	c->numa = numa_of(h, t, o->cpuset);
	c->npus = 0;
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(h, o->cpuset, HWLOC_OBJ_PU, pu)) != NULL) {
		if (pu->os_index >= TOPO_MAX_PUS)
			return fail(t, "%s: CPU %u beyond the %d supported", what, pu->os_index, TOPO_MAX_PUS);
		if (c->npus < TOPO_MAX_SMT)
			c->pus[c->npus++] = (int)pu->os_index;
	}
	if (c->npus > 1)
		t->smt = true;
	if (c->numa >= 0) {
		struct topo_numa *n = &t->numa[c->numa];
		n->ncores++;
		n->npus += c->npus;
		for (int k = 0; k < c->npus; k++)
			topo_pu_set(n->cpus, c->pus[k]);
	}
	return 0;
}

static void read_gpus(hwloc_topology_t h, struct topo *t)
{
	hwloc_obj_t o = NULL;
	while ((o = hwloc_get_next_pcidev(h, o)) != NULL && t->ngpus < TOPO_MAX_GPUS) {
		const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
		if (a->vendor_id != 0x10de || (a->class_id & 0xff00) != 0x0300)
			continue;   /* NVIDIA display (0x0300) and 3D (0x0302) controllers only */
		struct topo_gpu *g = &t->gpus[t->ngpus++];
		g->domain = a->domain;
		g->bus = a->bus;
		g->dev = a->dev;
		g->func = a->func;
		g->device_id = a->device_id;
		g->numa = -1;
		/* The NUMA node attached nearest above it (hwloc's locality; may
		 * be a CPU-less node where the device hangs off a whole package
		 * that also has one). A memory-side cache sits above its node. */
		hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(h, o);
		while (anc && anc->memory_arity == 0)
			anc = anc->parent;
		hwloc_obj_t m = anc ? anc->memory_first_child : NULL;
		while (m && m->type != HWLOC_OBJ_NUMANODE)
			m = m->memory_first_child;
		if (m && (int)m->logical_index < t->nnuma) {
			g->numa = (int)m->logical_index;
			t->numa[g->numa].ngpus++;
		}
	}
}

/* Fills t from a loaded topology; `what` names it in messages. */
static int fill(hwloc_topology_t h, struct topo *t, const char *what)
{
	int nnuma = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	int ncores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);

	t->npus = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	t->npackages = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
	if (t->npus <= 0)
		return fail(t, "%s: no CPUs in the topology", what);
	if (nnuma > TOPO_MAX_NUMA)
		return fail(t, "%s: %d NUMA nodes, more than the %d supported", what, nnuma, TOPO_MAX_NUMA);
	if (t->npackages < 0)
		t->npackages = 0;
	t->nnuma = nnuma > 0 ? nnuma : 0;
	for (int i = 0; i < t->nnuma; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		t->numa[i].os_index = (int)n->os_index;
		t->numa[i].package = package_of(h, n);
		t->numa[i].mem_bytes = n->attr ? n->attr->numanode.local_memory : 0;
		t->mem_bytes += t->numa[i].mem_bytes;
	}
	/* Cores, or each PU as its own core where hwloc found no cores (some VMs). */
	hwloc_obj_type_t unit = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	hwloc_obj_t o = NULL;
	while ((o = hwloc_get_next_obj_by_type(h, unit, o)) != NULL)
		if (add_core(h, t, o, what) != 0)
			return -1;

	const char *model = NULL;
	hwloc_obj_t p = NULL;
	while (!model && (p = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PACKAGE, p)) != NULL)
		model = hwloc_obj_get_info_by_name(p, "CPUModel");
	if (!model)
		model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(h), "CPUModel");
	if (model) {
		snprintf(t->cpu_model, sizeof t->cpu_model, "%s", model);
		for (char *s = t->cpu_model; *s; s++)   /* it ends up in JSON and on a terminal */
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				*s = '?';
	}
	read_gpus(h, t);
	return 0;
}

/* Opens an hwloc topology keeping PCI devices of the important classes
 * (GPUs among them) and without the vendor plugins (CUDA, NVML, ...): the
 * PCI bus is all we need, and the NVML plugin would initialise NVML. Nor
 * the "pci" plugin (libpciaccess): Linux's own backend reads the bus from
 * sysfs, and libpciaccess leaks about 1 KiB a load (LeakSanitizer). */
static int open_hwloc(hwloc_topology_t *h, struct topo *t, const char *what)
{
	static const char *const plugins[] = { "pci", "cuda", "nvml", "opencl", "rsmi", "levelzero", "gl", NULL };
	memset(t, 0, sizeof *t);
	if (hwloc_topology_init(h) != 0)
		return fail(t, "%s: hwloc_topology_init: %s", what, strerror(errno));
	hwloc_topology_set_io_types_filter(*h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	for (int i = 0; plugins[i]; i++)
		hwloc_topology_set_components(*h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, plugins[i]);
	return 0;
}

int topo_read_host(struct topo *t)
{
	hwloc_topology_t h;
	int rc = -1;
	if (open_hwloc(&h, t, "this host") != 0)
		return -1;
	if (hwloc_topology_load(h) != 0) {
		fail(t, "this host: hwloc could not read the topology: %s", strerror(errno));
		goto destroy;
	}
	rc = fill(h, t, "this host");
destroy:
	hwloc_topology_destroy(h);
	return rc;
}

int topo_read_xml(const char *path, struct topo *t)
{
	hwloc_topology_t h;
	int rc = -1;
	/* A clearer message than hwloc's for a file that is not there. */
	FILE *f = fopen(path, "r");
	if (!f) {
		memset(t, 0, sizeof *t);
		return fail(t, "%s: %s", path, strerror(errno));
	}
	fclose(f);
	if (open_hwloc(&h, t, path) != 0)
		return -1;
	if (hwloc_topology_set_xml(h, path) != 0 || hwloc_topology_load(h) != 0) {
		fail(t, "%s: not an hwloc XML topology (hwloc could not load it)", path);
		goto destroy;
	}
	rc = fill(h, t, path);
destroy:
	hwloc_topology_destroy(h);
	return rc;
}

/* ---- picking ------------------------------------------------------------------ */

static bool core_free(const struct topo_core *c, const uint64_t *busy)
{
	for (int k = 0; busy && k < c->npus; k++)
		if (topo_pu_isset(busy, c->pus[k]))
			return false;
	return true;
}

/* Sorts order[from..n) by free cores, most first, then by index. */
static void sort_by_free(int *order, int from, int n, const int *nfree)
{
	for (int i = from + 1; i < n; i++) {
		int x = order[i], j = i;
		while (j > from && (nfree[order[j - 1]] < nfree[x] ||
		                    (nfree[order[j - 1]] == nfree[x] && order[j - 1] > x))) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
}

int topo_pick_cpus(const struct topo *t, int numa, int ncores, const uint64_t *busy_pus,
                   int *out, int outcap, unsigned flags)
{
	/* Bucket t->nnuma holds the cores of no known node, taken last. */
	int nfree[TOPO_MAX_NUMA + 1] = { 0 }, order[TOPO_MAX_NUMA + 1];
	int norder = 0, total = 0;

	if (ncores < 1 || numa < -1 || numa >= t->nnuma || !out || outcap < 0)
		return -1;
	for (int i = 0; i < t->ncores; i++) {
		const struct topo_core *c = &t->core[i];
		if (core_free(c, busy_pus)) {
			nfree[c->numa >= 0 ? c->numa : t->nnuma]++;
			total++;
		}
	}
	if (total < ncores)
		return -1;

	if (numa >= 0) {
		int pkg = t->numa[numa].package;
		order[norder++] = numa;
		for (int i = 0; i < t->nnuma; i++)
			if (i != numa && pkg >= 0 && t->numa[i].package == pkg)
				order[norder++] = i;
		sort_by_free(order, 1, norder, nfree);
		int same = norder;
		for (int i = 0; i < t->nnuma; i++)
			if (i != numa && (pkg < 0 || t->numa[i].package != pkg))
				order[norder++] = i;
		sort_by_free(order, same, norder, nfree);
	} else {
		int best = -1;
		for (int i = 0; i < t->nnuma; i++)
			if (nfree[i] >= ncores && (best < 0 || nfree[i] < nfree[best]))
				best = i;
		if (best >= 0) {
			order[norder++] = best;
		} else {
			for (int i = 0; i < t->nnuma; i++)
				order[norder++] = i;
			sort_by_free(order, 0, norder, nfree);
		}
	}
	order[norder++] = t->nnuma;

	int n = 0, taken = 0;
	for (int k = 0; k < norder && taken < ncores; k++) {
		int node = order[k];
		for (int i = 0; i < t->ncores && taken < ncores; i++) {
			const struct topo_core *c = &t->core[i];
			if ((c->numa >= 0 ? c->numa : t->nnuma) != node || !core_free(c, busy_pus))
				continue;
			int m = (flags & TOPO_PICK_FIRST_PU) ? 1 : c->npus;
			if (n + m > outcap)
				return -1;
			for (int j = 0; j < m; j++)
				out[n++] = c->pus[j];
			taken++;
		}
	}
	return taken == ncores ? n : -1;
}

int topo_gpu_numa(const struct topo *t, const char *busid)
{
	unsigned dom, bus, dev, func;
	int end = 0;
	if (!busid || sscanf(busid, "%x:%x:%x.%x%n", &dom, &bus, &dev, &func, &end) != 4 || busid[end] != '\0')
		return -1;
	for (int i = 0; i < t->ngpus; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		if (g->domain == dom && g->bus == bus && g->dev == dev && g->func == func)
			return g->numa;
	}
	return -1;
}

char *topo_cpulist(const uint64_t *bits, char *buf, size_t n)
{
	size_t len = 0;
	if (n == 0)
		return buf;
	buf[0] = '\0';
	for (int a = 0; a < TOPO_MAX_PUS; a++) {
		if (!topo_pu_isset(bits, a))
			continue;
		int b = a;
		while (b + 1 < TOPO_MAX_PUS && topo_pu_isset(bits, b + 1))
			b++;
		int k = a == b ? snprintf(buf + len, n - len, "%s%d", len ? "," : "", a)
		               : snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "", a, b);
		if (k < 0 || (size_t)k >= n - len) {
			buf[len] = '\0';   /* truncated: the whole entries that fit are kept */
			break;
		}
		len += (size_t)k;
		a = b;
	}
	return buf;
}
