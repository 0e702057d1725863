// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: ib_get_rdma_header_version() and ib_get_gids_from_rdma_hdr()
 * (drivers/infiniband/core/net_hdr.c) on arbitrary 40-byte header areas.
 *
 * Input: 40 bytes of header area (shorter inputs are zero-padded), then one
 * byte choosing the network type.  The header lives in a heap block of
 * exactly 40 bytes so that AddressSanitizer sees any read past it.  Besides
 * crashes and undefined behaviour, the target checks the documented
 * answers against an independent reading of the same bytes.
 */
#include <linux/kernel.h>
#include <rdma/ib_net_hdr.h>
#include "fuzz.h"

#define AREA	40

/*
 * The documented rule: the checksum of the 20 bytes at @p, computed here
 * bytewise with the check field taken as zero, equals the stored one.
 */
static int ipv4_checksum_ok(const uint8_t *p)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		if (i != 10)
			sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (~sum & 0xffff) == ((uint32_t)p[10] << 8 | p[11]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union rdma_network_hdr *hdr = malloc(AREA);
	union ib_gid sgid, dgid;
	unsigned int type = size > AREA ? data[AREA] % 6 : RDMA_NETWORK_IPV6;
	const uint8_t *b = (const uint8_t *)hdr;
	int v, want;

	memset(hdr, 0, AREA);
	memcpy(hdr, data, size < AREA ? size : AREA);

	v = ib_get_rdma_header_version(hdr);
	if (b[0] >> 4 != 6)
		want = (b[20] >> 4) == 4 ? 4 : 0;
	else if ((b[20] & 0xf) != 5)
		want = 6;
	else
		want = ipv4_checksum_ok(b + 20) ? 4 : 6;
	FUZZ_CHECK(v == want);

	FUZZ_CHECK(ib_get_gids_from_rdma_hdr(hdr, type, &sgid, &dgid) == 0);
	if (type == RDMA_NETWORK_IPV4) {
		static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

		FUZZ_CHECK(!memcmp(sgid.raw, prefix, 12));
		FUZZ_CHECK(!memcmp(dgid.raw, prefix, 12));
		FUZZ_CHECK(!memcmp(sgid.raw + 12, b + 32, 4));
		FUZZ_CHECK(!memcmp(dgid.raw + 12, b + 36, 4));
	} else {
		FUZZ_CHECK(!memcmp(sgid.raw, b + 8, 16));
		FUZZ_CHECK(!memcmp(dgid.raw, b + 24, 16));
	}
	free(hdr);
	return 0;
}
