// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: ICRC verification (drivers/infiniband/sw/rxe/rxe_icrc.c).
 *
 * Input: one flag byte (bit 0: IPv6), then the IP header and the rest of
 * the packet.  The IP header and the UDP part live in separate heap blocks
 * of exactly their sizes, so any read past either is reported.  Checked:
 * rxe_icrc_ok() never reads out of bounds; a packet that carries the ICRC
 * rxe_icrc_compute() gives verifies, and still does after the fields the
 * ICRC leaves out are changed, and no longer does when one covered bit
 * flips.
 */
#include <linux/kernel.h>
#include "../../../../drivers/infiniband/sw/rxe/rxe_hdr.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool ipv6;
	unsigned int l3n;
	u8 *l3, *udp;
	u32 n;

	if (size < 1)
		return 0;
	ipv6 = data[0] & 1;
	l3n = ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES;
	if (size < 1 + l3n || size - 1 - l3n > 65536)
		return 0;
	n = size - 1 - l3n;
	l3 = malloc(l3n);
	memcpy(l3, data + 1, l3n);
	udp = malloc(n ? n : 1);
	memcpy(udp, data + 1 + l3n, n);

	/* Whatever the bytes, verification reads only what it was given. */
	(void)rxe_icrc_ok(l3, ipv6, udp, n);

	if (n >= RXE_UDP_BYTES + RXE_BTH_BYTES + RXE_ICRC_BYTES) {
		u32 body = n - RXE_ICRC_BYTES, bit;

		rxe_icrc_put(udp + body, rxe_icrc_compute(l3, ipv6, udp, body));
		FUZZ_CHECK(rxe_icrc_ok(l3, ipv6, udp, n));

		/* Routers may rewrite these: the ICRC must not notice. */
		if (ipv6) {
			l3[0] ^= 0x0f;
			l3[1] ^= 0xff;
			l3[3] ^= 0x5a;
			l3[7] -= 1;
		} else {
			l3[1] ^= 0xfc;
			l3[8] -= 1;
			l3[10] ^= 0x12;
		}
		udp[6] ^= 0xff;
		udp[RXE_UDP_BYTES + 4] ^= 0xc0;
		FUZZ_CHECK(rxe_icrc_ok(l3, ipv6, udp, n));

		/* Any covered bit of the payload: chosen by the input itself. */
		bit = (data[0] >> 1) % (8 * (body - RXE_UDP_BYTES - RXE_BTH_BYTES) + 1);
		if (bit) {
			u32 off = RXE_UDP_BYTES + RXE_BTH_BYTES + (bit - 1) / 8;

			udp[off] ^= 1 << ((bit - 1) % 8);
			FUZZ_CHECK(!rxe_icrc_ok(l3, ipv6, udp, n));
		}
	}
	free(udp);
	free(l3);
	return 0;
}
