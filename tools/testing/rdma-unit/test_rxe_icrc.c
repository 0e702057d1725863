// SPDX-License-Identifier: GPL-2.0
/*
 * rxe ICRC (drivers/infiniband/sw/rxe/rxe_icrc.c) against packets of the
 * stock rdma_rxe and an independently computed IPv6 vector, and the
 * invariance the RoCE v2 annex asks for: fields routers may rewrite do not
 * change the ICRC, every other bit does.
 */
#include <linux/kernel.h>
#include "../../../drivers/infiniband/sw/rxe/rxe_hdr.h"
#include "rxe_vectors.h"
#include "unit.h"

struct vec {
	const char *name;
	const u8 *pkt;
	u32 len;
	bool ipv6;
};

static const struct vec vecs[] = {
	{ "stock_ud_a", stock_ud_a, sizeof(stock_ud_a), false },
	{ "stock_ud_b", stock_ud_b, sizeof(stock_ud_b), false },
	{ "ipv6_ud", ipv6_ud, sizeof(ipv6_ud), true },
};

static unsigned int l3_len(const struct vec *v)
{
	return v->ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES;
}

/* A private, exactly sized copy that the test may modify. */
static u8 *copy(const struct vec *v)
{
	u8 *p = malloc(v->len);

	memcpy(p, v->pkt, v->len);
	return p;
}

static bool icrc_ok(const struct vec *v, const u8 *p)
{
	return rxe_icrc_ok(p, v->ipv6, p + l3_len(v), v->len - l3_len(v));
}

UNIT_TEST(rxe_icrc, reference_vectors_verify)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct vec *v = &vecs[i];
		const u8 *udp = v->pkt + l3_len(v);
		u32 n = v->len - l3_len(v);
		u8 out[4];

		if (!EXPECT_TRUE(icrc_ok(v, v->pkt)))
			printf("    # %s\n", v->name);
		rxe_icrc_put(out, rxe_icrc_compute(v->pkt, v->ipv6, udp, n - 4));
		EXPECT_MEMEQ(out, v->pkt + v->len - 4, 4);
	}
}

UNIT_TEST(rxe_icrc, put_is_little_endian)
{
	u8 out[4];

	rxe_icrc_put(out, 0x769640c7);
	EXPECT_EQ(out[0], 0xc7);
	EXPECT_EQ(out[1], 0x40);
	EXPECT_EQ(out[2], 0x96);
	EXPECT_EQ(out[3], 0x76);
}

/* Bytes (from the start of the IP header) that the ICRC does not cover. */
static bool masked(const struct vec *v, unsigned int off)
{
	unsigned int udp = l3_len(v);

	if (v->ipv6) {
		if (off == 7 || (off >= 1 && off <= 3))	/* hop limit, TC, flow */
			return true;
	} else if (off == 1 || off == 8 || off == 10 || off == 11) {
		return true;				/* TOS, TTL, checksum */
	}
	return off == udp + 6 || off == udp + 7 ||	/* UDP checksum */
	       off == udp + 8 + 4;			/* BTH FECN/BECN/resv */
}

UNIT_TEST(rxe_icrc, masked_fields_do_not_count)
{
	unsigned int i, off;

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct vec *v = &vecs[i];
		u8 *p = copy(v);

		for (off = 0; off < v->len - 4; off++) {
			if (!masked(v, off))
				continue;
			p[off] ^= 0xa5;
			if (!EXPECT_TRUE(icrc_ok(v, p)))
				printf("    # %s: byte %u\n", v->name, off);
			p[off] = v->pkt[off];
		}
		/* The low nibble of IPv6 byte 0 is traffic class: masked too. */
		if (v->ipv6) {
			p[0] ^= 0x0f;
			EXPECT_TRUE(icrc_ok(v, p));
			p[0] = v->pkt[0];
		}
		free(p);
	}
}

UNIT_TEST(rxe_icrc, every_other_bit_counts)
{
	unsigned int i, off, bit;

	for (i = 0; i < ARRAY_SIZE(vecs); i++) {
		const struct vec *v = &vecs[i];
		u8 *p = copy(v);

		for (off = 0; off < v->len; off++) {
			for (bit = 0; bit < 8; bit++) {
				if (masked(v, off) ||
				    (v->ipv6 && off == 0 && bit < 4))
					continue;
				p[off] ^= 1 << bit;
				if (!EXPECT_FALSE(icrc_ok(v, p)))
					printf("    # %s: byte %u bit %u\n",
					       v->name, off, bit);
				p[off] = v->pkt[off];
			}
		}
		free(p);
	}
}

UNIT_TEST(rxe_icrc, short_packets_fail)
{
	const struct vec *v = &vecs[0];
	unsigned int n;

	for (n = 0; n < RXE_UDP_BYTES + RXE_BTH_BYTES + RXE_ICRC_BYTES; n++) {
		u8 *p = malloc(RXE_IPV4_BYTES + n + 1);

		memcpy(p, v->pkt, RXE_IPV4_BYTES + n);
		EXPECT_FALSE(rxe_icrc_ok(p, false, p + RXE_IPV4_BYTES, n));
		free(p);
	}
}
