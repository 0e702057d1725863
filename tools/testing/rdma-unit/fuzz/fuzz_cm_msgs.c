// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the connection manager's first look at a received message
 * (drivers/infiniband/core/cm_msgs.c): cm_msg_type() on the attribute ID
 * and cm_msg_check() on the 232 payload bytes, then the field reads the
 * receive path makes of a message that passed.
 *
 * Input: two bytes of attribute ID, then the payload (zero-padded or cut
 * to 232 bytes, in a heap block of exactly that size so that
 * AddressSanitizer sees any read past it).  A message that passes must
 * satisfy, read here byte by byte, what the receive path relies on.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include "../../../../drivers/infiniband/core/cm_msgs.h"
#include "fuzz.h"

static bool zero4(const u8 *p)
{
	return !(p[0] | p[1] | p[2] | p[3]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	__be16 attr = cpu_to_be16(size >= 2 ? data[0] << 8 | data[1] : 0x10);
	u8 *m = calloc(1, CM_MSG_LEN);
	size_t n = size > 2 ? size - 2 : 0;
	const char *why;
	int type;

	memcpy(m, data + (size > 2 ? 2 : 0), n < CM_MSG_LEN ? n : CM_MSG_LEN);
	type = cm_msg_type(attr);
	if (type < 0) {
		FUZZ_CHECK(type == -EINVAL);
		FUZZ_CHECK(be16_to_cpu(attr) < 0x10 || be16_to_cpu(attr) > 0x1a);
		free(m);
		return 0;
	}
	why = cm_msg_check(type, m);
	if (!why) {
		struct cm_pdata_place p = cm_pdata_place(type);

		FUZZ_CHECK(p.off + p.len == CM_MSG_LEN);
		switch (type) {
		case CM_MSG_REQ:
			FUZZ_CHECK(!zero4(m));
			FUZZ_CHECK(m[32] | m[33] | m[34]);
			FUZZ_CHECK((m[50] >> 4) >= 1 && (m[50] >> 4) <= 5);
			FUZZ_CHECK(((m[43] >> 1) & 3) != 2);
			break;
		case CM_MSG_REJ:
			FUZZ_CHECK((m[9] >> 1) <= CM_INFO_MAX);
			FUZZ_CHECK((m[8] >> 6) <= 2);
			FUZZ_CHECK(!zero4(m) || !zero4(m + 4));
			break;
		case CM_MSG_SIDR_REP:
			FUZZ_CHECK(m[4] <= CM_SIDR_STATUS_MAX);
			FUZZ_CHECK(m[5] <= CM_INFO_MAX);
			break;
		case CM_MSG_SIDR_REQ:
			break;
		case CM_MSG_LAP:
		case CM_MSG_APR:
			FUZZ_CHECK(0);
			break;
		default:
			FUZZ_CHECK(!zero4(m) && !zero4(m + 4));
		}
	}
	free(m);
	return 0;
}
