/* hostlist — compressed node lists. See hostlist.h. */
#include "analysis/hostlist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"

/* Splits a node name into a prefix and a numeric suffix. The suffix counts
 * only without a leading zero (so that "n01" is never written back as
 * "n1") and when it is short enough to fit; otherwise *num is -1. */
static size_t name_split(const char *name, int32_t *num)
{
	size_t len = strlen(name), p = len;
	while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9')
		p--;
	size_t nd = len - p;
	if (nd == 0 || nd > 9 || (nd > 1 && name[p] == '0')) {
		*num = -1;
		return len;
	}
	*num = (int32_t)strtol(name + p, NULL, 10);
	return p;
}

struct sortctx {
	const struct hostlist *h;
	const struct cluster *cl;
};

static int cmp_prefix(const void *a, const void *b, void *arg)
{
	const struct sortctx *c = arg;
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	size_t lx = (size_t)c->h->plen[x], ly = (size_t)c->h->plen[y];
	int d = memcmp(c->cl->nodes[x].name, c->cl->nodes[y].name, lx < ly ? lx : ly);
	return d ? d : (lx > ly) - (lx < ly);
}

int hostlist_init(struct hostlist *h, const struct cluster *cl)
{
	memset(h, 0, sizeof *h);
	int32_t n = cl->nnodes;
	size_t sz = (size_t)(n + 1) * sizeof(int32_t);
	h->plen = malloc(sz);
	h->num = malloc(sz);
	h->grp = malloc(sz);
	int32_t *order = malloc(sz);
	if (!h->plen || !h->num || !h->grp || !order) {
		free(order);
		hostlist_fini(h);
		return -1;
	}
	for (int32_t i = 0; i < n; i++) {
		size_t len = strlen(cl->nodes[i].name);
		h->maxname = len > h->maxname ? len : h->maxname;
		h->plen[i] = (int32_t)name_split(cl->nodes[i].name, &h->num[i]);
		order[i] = i;
	}
	/* The groups: the nodes sorted by prefix, numbered. */
	struct sortctx ctx = { h, cl };
	qsort_r(order, (size_t)n, sizeof *order, cmp_prefix, &ctx);
	int32_t grp = 0;
	for (int32_t i = 0; i < n; i++) {
		if (i > 0 && cmp_prefix(&order[i - 1], &order[i], &ctx) != 0)
			grp++;
		h->grp[order[i]] = grp;
	}
	free(order);
	h->n = n;
	return 0;
}

void hostlist_fini(struct hostlist *h)
{
	free(h->plen);
	free(h->num);
	free(h->grp);
	free(h->buf);
	memset(h, 0, sizeof *h);
}

/* v in decimal at o, without printf: this runs for every node of every job. */
static char *put_u(char *o, uint32_t v)
{
	char tmp[12];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n > 0)
		*o++ = tmp[--n];
	return o;
}

/* lo, or lo-hi when the run is longer. */
static char *put_run(char *o, int32_t lo, int32_t hi)
{
	o = put_u(o, (uint32_t)lo);
	if (hi > lo) {
		*o++ = '-';
		o = put_u(o, (uint32_t)hi);
	}
	return o;
}

const char *hostlist_format(struct hostlist *h, const struct cluster *cl, const int32_t *nodes,
                            int n, size_t *len)
{
	/* Nothing is longer than every name written out with its comma. */
	size_t need = (size_t)n * (h->maxname + 2) + 2;
	for (int i = 0; i < n && h->n < cl->nnodes; i++)
		if (nodes[i] >= h->n)
			need += strlen(cl->nodes[nodes[i]].name);   /* a node after init */
	if (need > h->cap) {
		size_t cap = h->cap ? h->cap : 256;
		while (cap < need)
			cap *= 2;
		char *p = realloc(h->buf, cap);
		if (!p)
			return NULL;
		h->buf = p;
		h->cap = cap;
	}
	char *o = h->buf;
	const int32_t *num = h->num, *grp = h->grp, *plen = h->plen;
	int i = 0;
	while (i < n) {
		int32_t node = nodes[i];
		assert(node >= 0 && node < cl->nnodes);
		const char *name = cl->nodes[node].name;
		if (i > 0)
			*o++ = ',';
		/* A node added after init, or without a number: its name. */
		if (node >= h->n || num[node] < 0) {
			size_t l = strlen(name);
			memcpy(o, name, l);
			o += l;
			i++;
			continue;
		}
		/* The group: the following nodes with the same prefix and a
		 * number, and its runs of consecutive numbers, in one walk;
		 * written as prefix[runs]. A group of one is its name: the
		 * prefix and the number (name_split keeps only numbers written
		 * back the same), the '[' taken out again. */
		int32_t g = grp[node], lo = num[node], hi = lo;
		memcpy(o, name, (size_t)plen[node]);
		o += plen[node];
		char *open = o;
		*o++ = '[';
		int m = i + 1;
		for (; m < n; m++) {
			int32_t x = nodes[m];
			if (x >= h->n || grp[x] != g || num[x] < 0)
				break;
			if (num[x] == hi + 1) {
				hi++;
				continue;
			}
			o = put_run(o, lo, hi);
			*o++ = ',';
			lo = hi = num[x];
		}
		o = put_run(o, lo, hi);
		if (m == i + 1) {
			memmove(open, open + 1, (size_t)(o - open - 1));
			o--;
		} else {
			*o++ = ']';
		}
		i = m;
	}
	*o = '\0';
	h->len = (size_t)(o - h->buf);
	*len = h->len;
	return h->buf;
}
