// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: the key=value words of a command.
 *
 *   secs=N size=N window=N depth=N iters=N atomic=0|1 echo=0|1 port=N
 *   dqpn=N dpsn=N                  unsigned numbers (0x.. accepted)
 *   type=ud|rc                     QP type of "qp"
 *   dest=ADDR                      the peer's IPv4 or IPv6 address
 *   dmac=MAC                       the peer's MAC address
 *
 * An unknown key, a malformed value or a word without '=' is -EINVAL.
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "bench.h"
#include "../ulp/rdma_ulp_util.h"

struct bench_uint_key {
	const char	*key;
	size_t		offset;
};

#define BENCH_UINT(name) { #name, offsetof(struct bench_args, name) }

static const struct bench_uint_key bench_uint_keys[] = {
	BENCH_UINT(secs),
	BENCH_UINT(size),
	BENCH_UINT(window),
	BENCH_UINT(depth),
	BENCH_UINT(iters),
	BENCH_UINT(atomic),
	BENCH_UINT(echo),
	BENCH_UINT(port),
	BENCH_UINT(dqpn),
	BENCH_UINT(dpsn),
};

static int bench_parse_dest(const char *val, struct bench_args *a)
{
	if (rdma_ulp_parse_gid(val, &a->dgid, &a->dest_is_v4))
		return -EINVAL;
	if (a->dest_is_v4)
		a->dip4 = ((struct in6_addr *)a->dgid.raw)->s6_addr32[3];
	a->has_dest = true;
	return 0;
}

static int bench_parse_word(const char *key, const char *val,
			    struct bench_args *a)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_uint_keys); i++)
		if (!strcmp(key, bench_uint_keys[i].key))
			return kstrtouint(val, 0, (unsigned int *)
					  ((char *)a + bench_uint_keys[i].offset));
	if (!strcmp(key, "type")) {
		if (!strcmp(val, "ud"))
			a->qp_type = IB_QPT_UD;
		else if (!strcmp(val, "rc"))
			a->qp_type = IB_QPT_RC;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "dest"))
		return bench_parse_dest(val, a);
	if (!strcmp(key, "dmac")) {
		if (!mac_pton(val, a->dmac))
			return -EINVAL;
		a->has_dmac = true;
		return 0;
	}
	return -EINVAL;
}

/**
 * bench_parse_args() - fill @a from the words of a command line
 * @words: what follows the command name; split in place
 * @a: the arguments, set to their defaults first
 *
 * Return: 0, or -EINVAL for an unknown key or a malformed value.
 */
int bench_parse_args(char *words, struct bench_args *a)
{
	char *word, *val;
	int ret;

	memset(a, 0, sizeof(*a));
	a->secs = 3;
	a->size = 1024;
	a->iters = 1000;
	a->port = 4792;
	a->qp_type = IB_QPT_UD;

	while ((word = strsep(&words, " \t\n")) != NULL) {
		if (!*word)
			continue;
		val = strchr(word, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		ret = bench_parse_word(word, val, a);
		if (ret)
			return ret;
	}
	return 0;
}
