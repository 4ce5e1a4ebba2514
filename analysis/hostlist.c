/* hostlist — compressed node lists. See hostlist.h. */
#include "analysis/hostlist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"

static int put(struct hostlist *h, const char *s, size_t n)
{
	if (h->len + n + 1 > h->cap) {
		size_t cap = h->cap ? h->cap : 256;
		while (h->len + n + 1 > cap)
			cap *= 2;
		char *p = realloc(h->buf, cap);
		if (!p)
			return -1;
		h->buf = p;
		h->cap = cap;
	}
	memcpy(h->buf + h->len, s, n);
	h->len += n;
	h->buf[h->len] = '\0';
	return 0;
}

/* v in decimal, without printf: this runs for every node of every job. */
static int put_u(struct hostlist *h, unsigned long v)
{
	char tmp[24];
	size_t n = sizeof tmp;
	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return put(h, tmp + n, sizeof tmp - n);
}

/* Splits a node name into a prefix and a numeric suffix. The suffix counts
 * only without a leading zero (so that "n01" is never written back as
 * "n1") and when it is short enough to fit; otherwise *num is -1. */
static size_t name_split(const char *name, long *num)
{
	size_t len = strlen(name), p = len;
	while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9')
		p--;
	size_t nd = len - p;
	if (nd == 0 || nd > 9 || (nd > 1 && name[p] == '0')) {
		*num = -1;
		return len;
	}
	*num = strtol(name + p, NULL, 10);
	return p;
}

static struct hostlist_split split_of(const struct hostlist *h, const struct cluster *cl, int32_t node)
{
	if (node < h->n)
		return h->split[node];
	struct hostlist_split s = { .grp = -1 - node };   /* a group of its own */
	s.plen = name_split(cl->nodes[node].name, &s.num);
	return s;
}

struct sortctx {
	const struct hostlist *h;
	const struct cluster *cl;
};

static int cmp_prefix(const void *a, const void *b, void *arg)
{
	const struct sortctx *c = arg;
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	size_t lx = c->h->split[x].plen, ly = c->h->split[y].plen;
	int d = memcmp(c->cl->nodes[x].name, c->cl->nodes[y].name, lx < ly ? lx : ly);
	return d ? d : (lx > ly) - (lx < ly);
}

int hostlist_init(struct hostlist *h, const struct cluster *cl)
{
	memset(h, 0, sizeof *h);
	int32_t n = cl->nnodes;
	h->split = malloc((size_t)(n + 1) * sizeof *h->split);
	int32_t *order = malloc((size_t)(n + 1) * sizeof *order);
	if (!h->split || !order) {
		free(order);
		free(h->split);
		h->split = NULL;
		return -1;
	}
	for (int32_t i = 0; i < n; i++) {
		h->split[i].plen = name_split(cl->nodes[i].name, &h->split[i].num);
		order[i] = i;
	}
	/* The groups: the nodes sorted by prefix, numbered. */
	struct sortctx ctx = { h, cl };
	qsort_r(order, (size_t)n, sizeof *order, cmp_prefix, &ctx);
	int32_t grp = 0;
	for (int32_t i = 0; i < n; i++) {
		if (i > 0 && cmp_prefix(&order[i - 1], &order[i], &ctx) != 0)
			grp++;
		h->split[order[i]].grp = grp;
	}
	free(order);
	h->n = n;
	return 0;
}

void hostlist_fini(struct hostlist *h)
{
	free(h->split);
	free(h->buf);
	memset(h, 0, sizeof *h);
}

const char *hostlist_format(struct hostlist *h, const struct cluster *cl, const int32_t *nodes,
                            int n, size_t *len)
{
	h->len = 0;
	if (put(h, "", 0) < 0)
		return NULL;
	int i = 0;
	while (i < n) {
		assert(nodes[i] >= 0 && nodes[i] < cl->nnodes);
		const char *name = cl->nodes[nodes[i]].name;
		struct hostlist_split sp = split_of(h, cl, nodes[i]);
		if (i > 0 && put(h, ",", 1) < 0)
			return NULL;
		/* The group: following nodes with the same prefix and a number. */
		int end = i + 1;
		while (sp.num >= 0 && end < n) {
			struct hostlist_split s2 = split_of(h, cl, nodes[end]);
			if (s2.num < 0 || s2.grp != sp.grp)
				break;
			end++;
		}
		if (sp.num < 0 || end == i + 1) {
			if (put(h, name, strlen(name)) < 0)
				return NULL;
			i++;
			continue;
		}
		if (put(h, name, sp.plen) < 0 || put(h, "[", 1) < 0)
			return NULL;
		for (int k = i; k < end;) {
			long lo = split_of(h, cl, nodes[k]).num, hi = lo;
			int m = k + 1;
			for (; m < end; m++) {
				long num = split_of(h, cl, nodes[m]).num;
				if (num != hi + 1)
					break;
				hi = num;
			}
			if (k > i && put(h, ",", 1) < 0)
				return NULL;
			if (put_u(h, (unsigned long)lo) < 0)
				return NULL;
			if (hi > lo && (put(h, "-", 1) < 0 || put_u(h, (unsigned long)hi) < 0))
				return NULL;
			k = m;
		}
		if (put(h, "]", 1) < 0)
			return NULL;
		i = end;
	}
	*len = h->len;
	return h->buf;
}
