// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/cm_msgs.c: the connection manager's field
 * layout, the checks on received messages and its time rules.  Expected
 * bytes are written out from the layouts of IBTA Vol 1 12.6 (CM.md 2.2),
 * not computed with the code under test.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "../../../drivers/infiniband/core/cm_msgs.h"
#include "unit.h"

UNIT_TEST(cm_msgs, req_byte_43_packs_three_fields)
{
	u8 m[CM_MSG_LEN] = {};

	cmf_set(m, CM_REQ_REMOTE_CM_TMO, 20);
	cmf_set(m, CM_REQ_TRANSPORT, CM_TRANSPORT_UC);
	cmf_set(m, CM_REQ_FLOW_CTRL, 1);
	EXPECT_EQ(m[43], 0xa3);
	EXPECT_EQ(cmf_get(m, CM_REQ_REMOTE_CM_TMO), 20);
	EXPECT_EQ(cmf_get(m, CM_REQ_TRANSPORT), CM_TRANSPORT_UC);
	EXPECT_EQ(cmf_get(m, CM_REQ_FLOW_CTRL), 1);
	cmf_set(m, CM_REQ_TRANSPORT, CM_TRANSPORT_RC);
	EXPECT_EQ(m[43], 0xa1);
}

UNIT_TEST(cm_msgs, flow_label_and_rate_share_a_word)
{
	static const u8 want[4] = { 0xab, 0xcd, 0xe0, 0x2a };
	u8 m[CM_MSG_LEN] = {};

	cmf_set(m, CM_REQ_FLOW_LABEL, 0xabcde);
	cmf_set(m, CM_REQ_RATE, 0x2a);
	EXPECT_MEMEQ(m + 88, want, 4);
	EXPECT_EQ(cmf_get(m, CM_REQ_FLOW_LABEL), 0xabcde);
	EXPECT_EQ(cmf_get(m, CM_REQ_RATE), 0x2a);
	/* Too wide a value loses its high bits, not its neighbours. */
	cmf_set(m, CM_REQ_RATE, 0xff);
	EXPECT_EQ(m[90], 0xe0);
	EXPECT_EQ(m[91], 0x3f);
}

UNIT_TEST(cm_msgs, u24_fields_leave_the_next_byte)
{
	u8 m[CM_MSG_LEN] = {};

	cmf_set(m, CM_REQ_RESP_RES, 0x77);
	cmf_set(m, CM_REQ_QPN, 0x123456);
	EXPECT_EQ(m[32], 0x12);
	EXPECT_EQ(m[33], 0x34);
	EXPECT_EQ(m[34], 0x56);
	EXPECT_EQ(m[35], 0x77);
	EXPECT_EQ(cmf_get(m, CM_REQ_QPN), 0x123456);
	cmf_set(m, CM_REP_RNR_RETRY, 7);
	cmf_set(m, CM_REP_SRQ, 1);
	EXPECT_EQ(m[27], 0xf0);
	cmf_set(m, CM_REJ_ARI_LEN, 72);
	EXPECT_EQ(m[9], 144);
	cmf_set(m, CM_MRA_MSG, CM_MSG_RESPONSE_REP);
	EXPECT_EQ(m[8], 0x40);
}

UNIT_TEST(cm_msgs, attribute_ids)
{
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x0010)), CM_MSG_REQ);
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x0016)), CM_MSG_DREP);
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x001a)), CM_MSG_APR);
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x000f)), -EINVAL);
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x001b)), -EINVAL);
	EXPECT_EQ(cm_msg_type(cpu_to_be16(0x1010)), -EINVAL);
	EXPECT_STREQ(cm_msg_name(CM_MSG_SIDR_REQ), "sidr_req");
}

UNIT_TEST(cm_msgs, private_data_ends_each_message)
{
	static const u8 room[CM_MSG_TYPES] = {
		92, 222, 148, 196, 224, 220, 224, 216, 136, 168, 148,
	};
	int t;

	for (t = 0; t < CM_MSG_TYPES; t++) {
		struct cm_pdata_place p = cm_pdata_place(t);

		EXPECT_EQ(p.len, room[t]);
		EXPECT_EQ(p.off + p.len, CM_MSG_LEN);
	}
}

static void good_req(u8 *m)
{
	memset(m, 0, CM_MSG_LEN);
	m[3] = 1;			/* local comm ID */
	cmf_set(m, CM_REQ_QPN, 0x11);
	cmf_set(m, CM_REQ_MTU, 3);
}

UNIT_TEST(cm_msgs, req_checks)
{
	u8 m[CM_MSG_LEN];

	good_req(m);
	EXPECT_TRUE(!cm_msg_check(CM_MSG_REQ, m));
	m[3] = 0;
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	good_req(m);
	cmf_set(m, CM_REQ_QPN, 0);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	good_req(m);
	cmf_set(m, CM_REQ_TRANSPORT, 2);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	cmf_set(m, CM_REQ_TRANSPORT, CM_TRANSPORT_EXT);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	cmf_set(m, CM_REQ_EXT_TRANSPORT, CM_EXT_TRANSPORT_XRC);
	EXPECT_TRUE(!cm_msg_check(CM_MSG_REQ, m));
	good_req(m);
	cmf_set(m, CM_REQ_MTU, 0);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	cmf_set(m, CM_REQ_MTU, 6);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REQ, m));
	cmf_set(m, CM_REQ_MTU, 5);
	EXPECT_TRUE(!cm_msg_check(CM_MSG_REQ, m));
}

UNIT_TEST(cm_msgs, other_checks)
{
	u8 m[CM_MSG_LEN] = {};

	EXPECT_TRUE(cm_msg_check(CM_MSG_RTU, m));
	m[3] = 1;
	EXPECT_TRUE(cm_msg_check(CM_MSG_RTU, m));
	m[7] = 2;
	EXPECT_TRUE(!cm_msg_check(CM_MSG_RTU, m));
	EXPECT_TRUE(!cm_msg_check(CM_MSG_DREQ, m));
	EXPECT_TRUE(cm_msg_check(CM_MSG_REP, m));	/* QPN 0 */
	cmf_set(m, CM_REP_QPN, 5);
	EXPECT_TRUE(!cm_msg_check(CM_MSG_REP, m));
	cmf_set(m, CM_MRA_MSG, 3);
	EXPECT_TRUE(cm_msg_check(CM_MSG_MRA, m));

	memset(m, 0, sizeof(m));
	EXPECT_TRUE(cm_msg_check(CM_MSG_REJ, m));	/* no IDs */
	m[7] = 9;
	EXPECT_TRUE(!cm_msg_check(CM_MSG_REJ, m));
	cmf_set(m, CM_REJ_ARI_LEN, 73);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REJ, m));
	cmf_set(m, CM_REJ_ARI_LEN, 72);
	cmf_set(m, CM_REJ_MSG, 3);
	EXPECT_TRUE(cm_msg_check(CM_MSG_REJ, m));

	memset(m, 0, sizeof(m));
	EXPECT_TRUE(!cm_msg_check(CM_MSG_SIDR_REQ, m));
	EXPECT_TRUE(!cm_msg_check(CM_MSG_SIDR_REP, m));
	cmf_set(m, CM_SIDR_REP_STATUS, 6);
	EXPECT_TRUE(cm_msg_check(CM_MSG_SIDR_REP, m));
	cmf_set(m, CM_SIDR_REP_STATUS, 5);
	cmf_set(m, CM_SIDR_REP_INFO_LEN, 73);
	EXPECT_TRUE(cm_msg_check(CM_MSG_SIDR_REP, m));
	EXPECT_TRUE(cm_msg_check(CM_MSG_LAP, m));
	EXPECT_TRUE(cm_msg_check(CM_MSG_APR, m));
}

UNIT_TEST(cm_msgs, ack_timeout)
{
	EXPECT_EQ(cm_ack_timeout(15, 16), 17);	/* rxe: delay 15, life 16 */
	EXPECT_EQ(cm_ack_timeout(0, 0), 2);
	EXPECT_EQ(cm_ack_timeout(20, 10), 20);
	EXPECT_EQ(cm_ack_timeout(20, 18), 21);
	EXPECT_EQ(cm_ack_timeout(10, 9), 11);
	EXPECT_EQ(cm_ack_timeout(31, 31), 31);
}

UNIT_TEST(cm_msgs, times_in_ms)
{
	EXPECT_EQ(cm_tmo_ms(0), 1);
	EXPECT_EQ(cm_tmo_ms(8), 1);
	EXPECT_EQ(cm_tmo_ms(16), 256);
	EXPECT_EQ(cm_tmo_ms(17), 512);
	EXPECT_EQ(cm_tmo_ms(20), 4096);
	EXPECT_EQ(cm_tmo_ms(24), 65536);
	EXPECT_EQ(cm_tmo_ms(31), 1UL << 23);
	EXPECT_EQ(cm_tmo_ms(200), 1UL << 23);
}
