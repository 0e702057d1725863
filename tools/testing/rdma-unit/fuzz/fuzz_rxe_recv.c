// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the rxe receive path up to the point where a packet would
 * touch a QP (rxe_rcv_check() in drivers/infiniband/sw/rxe/rxe_validate.c,
 * which rxe_rcv() calls), then the per-QP checks and header reads a QP
 * would do with an accepted packet.
 *
 * Input: one flag byte (bit 0: IPv6; bit 1: store the right ICRC first, so
 * that the checks behind the ICRC are reached), then the IP header and the
 * UDP datagram.  The IP header, the datagram, and later the packet's
 * headers and payload, each live in a heap block of exactly their size.
 */
#include <linux/kernel.h>
#include "../../../../drivers/infiniband/sw/rxe/rxe_hdr.h"
#include "fuzz.h"

/* Where the values read go, so that the reads are not optimised away. */
u64 fuzz_rxe_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

static u8 *isolate(const u8 *p, u32 n)
{
	u8 *c = malloc(n ? n : 1);

	memcpy(c, p, n);
	return c;
}

/* What a QP does with an accepted packet, on exact-size copies. */
static void use_packet(const struct rxe_pkt *pkt)
{
	static const u32 mtus[] = { 256, 512, 1024, 2048, 4096 };
	struct rxe_pkt hp = *pkt;
	u8 *hdr = isolate(pkt->hdr, pkt->hdr_len);
	u8 *pay = isolate(rxe_pkt_payload(pkt), pkt->paylen);
	u64 sink = 0;
	unsigned int i;

	hp.hdr = hdr;
	if (hp.mask & RXE_MASK_DETH)
		sink += rxe_deth_qkey(rxe_pkt_ext(&hp, RXE_MASK_DETH)) +
			rxe_deth_sqp(rxe_pkt_ext(&hp, RXE_MASK_DETH));
	if (hp.mask & RXE_MASK_RETH)
		sink += rxe_reth_va(rxe_pkt_ext(&hp, RXE_MASK_RETH)) +
			rxe_reth_len(rxe_pkt_ext(&hp, RXE_MASK_RETH));
	if (hp.mask & RXE_MASK_ATMETH)
		sink += rxe_atmeth_comp(rxe_pkt_ext(&hp, RXE_MASK_ATMETH));
	if (hp.mask & RXE_MASK_AETH)
		sink += rxe_aeth_msn(rxe_pkt_ext(&hp, RXE_MASK_AETH));
	if (hp.mask & RXE_MASK_ATMACK)
		sink += rxe_atmack_orig(rxe_pkt_ext(&hp, RXE_MASK_ATMACK));
	if (hp.mask & RXE_MASK_IMMDT)
		sink += rxe_get32(rxe_pkt_ext(&hp, RXE_MASK_IMMDT));
	if (hp.mask & RXE_MASK_IETH)
		sink += rxe_get32(rxe_pkt_ext(&hp, RXE_MASK_IETH));
	for (i = 0; i < pkt->paylen; i++)
		sink += pay[i];

	sink += rxe_check_transport(pkt, RXE_MASK_RC, pkt->qpn);
	sink += rxe_check_transport(pkt, RXE_MASK_UC, pkt->qpn);
	sink += rxe_check_transport(pkt, RXE_MASK_UD, pkt->qpn);
	for (i = 0; i < ARRAY_SIZE(mtus); i++)
		sink += rxe_check_seg_len(pkt, mtus[i]);
	if (pkt->mask & RXE_MASK_DETH)
		sink += rxe_qkey_ok(pkt->qpn, 0x11111111,
				    rxe_deth_qkey(rxe_pkt_ext(pkt, RXE_MASK_DETH)));
	sink += rxe_psn_diff(pkt->psn, 0) + rxe_psn_add(pkt->psn, 1);
	fuzz_rxe_sink += sink;
	free(pay);
	free(hdr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rxe_pkt pkt;
	enum rxe_drop why;
	unsigned int l3n;
	bool ipv6;
	u8 *l3, *udp;
	u32 n;

	if (size < 1)
		return 0;
	ipv6 = data[0] & 1;
	l3n = ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES;
	if (size < 1 + l3n || size - 1 - l3n > 65536)
		return 0;
	n = size - 1 - l3n;
	l3 = isolate(data + 1, l3n);
	udp = isolate(data + 1 + l3n, n);
	if ((data[0] & 2) && n >= RXE_UDP_BYTES + RXE_BTH_BYTES + RXE_ICRC_BYTES)
		rxe_icrc_put(udp + n - RXE_ICRC_BYTES,
			     rxe_icrc_compute(l3, ipv6, udp, n - RXE_ICRC_BYTES));

	why = rxe_rcv_check(l3, ipv6, udp, n, &pkt);
	FUZZ_CHECK(why < RXE_DROP_NR);
	if (why == RXE_DROP_NONE) {
		u32 tp = pkt.mask & (RXE_MASK_RC | RXE_MASK_UC | RXE_MASK_UD);

		FUZZ_CHECK(pkt.hdr == udp + RXE_UDP_BYTES);
		FUZZ_CHECK(pkt.len == n - RXE_UDP_BYTES);
		FUZZ_CHECK(pkt.mask == rxe_opcode_mask(pkt.opcode));
		FUZZ_CHECK(tp && !(tp & (tp - 1)));
		FUZZ_CHECK(pkt.hdr_len == rxe_opcode_hdr_len(pkt.mask));
		FUZZ_CHECK(pkt.hdr_len + pkt.paylen + pkt.pad + RXE_ICRC_BYTES ==
			   pkt.len);
		FUZZ_CHECK(pkt.pad <= 3 && !((pkt.paylen + pkt.pad) & 3));
		FUZZ_CHECK(pkt.paylen <= RXE_MAX_PAYLOAD);
		FUZZ_CHECK(pkt.paylen == 0 || (pkt.mask & RXE_MASK_PAYLOAD));
		FUZZ_CHECK(pkt.qpn <= RXE_QPN_MASK && pkt.psn <= RXE_PSN_MASK);
		FUZZ_CHECK(rxe_icrc_ok(l3, ipv6, udp, n));
		FUZZ_CHECK(rxe_pkey_ok(rxe_bth_pkey(pkt.hdr), RXE_DEFAULT_PKEY));
		use_packet(&pkt);
	}
	free(udp);
	free(l3);
	return 0;
}
