// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the RDMA CM's reading of the header that opens a received
 * REQ's or SIDR_REQ's private data (drivers/infiniband/core/cma_hdr.c),
 * then the address check the request path makes.
 *
 * Input: the private data as received, in a heap block of exactly its
 * size so that AddressSanitizer sees any read past it.  A header that
 * passes must read back to the same bytes when written out again.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include "../../../../drivers/infiniband/core/cma_hdr.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *m = malloc(size ? size : 1);
	struct cma_hdr_addrs a;
	u8 again[CMA_HDR_LEN];
	int ret;

	memcpy(m, data, size);
	ret = cma_hdr_get(m, size, &a);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(size < CMA_HDR_LEN || m[0] != 0 ||
			   ((m[1] >> 4) != 4 && (m[1] >> 4) != 6));
		free(m);
		return 0;
	}
	FUZZ_CHECK(size >= CMA_HDR_LEN && m[0] == 0);
	FUZZ_CHECK(a.ipver == 4 || a.ipver == 6);
	FUZZ_CHECK(a.sport == (m[2] << 8 | m[3]));
	cma_hdr_remote_ok(a.ipver, a.src);
	cma_hdr_put(again, &a);
	FUZZ_CHECK(again[1] == (m[1] & 0xf0));
	if (a.ipver == 6) {
		FUZZ_CHECK(!memcmp(again + 4, m + 4, 32));
	} else {
		FUZZ_CHECK(!memcmp(again + 16, m + 16, 4));
		FUZZ_CHECK(!memcmp(again + 32, m + 32, 4));
	}
	free(m);
	return 0;
}
