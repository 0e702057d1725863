// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Attributes in the layouts user space reads and writes: address vectors
 * and QP attributes as ib_uverbs_* (what rdma_ucm's INIT_QP_ATTR answers)
 * and paths as ib_user_path_rec (what it reports and accepts).  Pure
 * copies; the caller owns both sides.
 */
#include <linux/export.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <rdma/ib_marshall.h>

/**
 * ib_copy_ah_attr_to_user() - an address vector in the user layout
 * @device: the device it is for
 * @dst: the user layout, overwritten whole
 * @src: the vector
 *
 * The GRH part is filled only when @src has one (is_global then 1).  An
 * OPA vector's 32-bit LID is cut to 16 bits, as the layout holds.
 */
void ib_copy_ah_attr_to_user(struct ib_device *device,
			     struct ib_uverbs_ah_attr *dst,
			     struct rdma_ah_attr *src)
{
	const struct ib_global_route *grh;

	memset(dst, 0, sizeof(*dst));
	dst->port_num = rdma_ah_get_port_num(src);
	dst->static_rate = rdma_ah_get_static_rate(src);
	dst->src_path_bits = rdma_ah_get_path_bits(src);
	dst->sl = rdma_ah_get_sl(src);
	dst->dlid = rdma_ah_get_dlid(src);
	if (!(rdma_ah_get_ah_flags(src) & IB_AH_GRH))
		return;
	grh = rdma_ah_read_grh(src);
	dst->is_global = 1;
	dst->grh.traffic_class = grh->traffic_class;
	dst->grh.hop_limit = grh->hop_limit;
	dst->grh.sgid_index = grh->sgid_index;
	dst->grh.flow_label = grh->flow_label;
	memcpy(dst->grh.dgid, grh->dgid.raw, sizeof(dst->grh.dgid));
}
EXPORT_SYMBOL(ib_copy_ah_attr_to_user);

/*
 * The scalar QP attributes: where each sits in the user layout (@to, @to_size
 * bytes) and in the kernel's (@from, @from_size).  The kernel's enums and
 * u32s become u32s, its u16s u16s, its u8s (and the u32 port numbers) u8s.
 */
#define QP_U(f)		offsetof(struct ib_uverbs_qp_attr, f)
#define QP_K(f)		offsetof(struct ib_qp_attr, f)

static const struct {
	u16	to;
	u8	to_size;
	u16	from;
	u8	from_size;
} qp_fields[] = {
	{ QP_U(qp_state), 4, QP_K(qp_state), 4 },
	{ QP_U(cur_qp_state), 4, QP_K(cur_qp_state), 4 },
	{ QP_U(path_mtu), 4, QP_K(path_mtu), 4 },
	{ QP_U(path_mig_state), 4, QP_K(path_mig_state), 4 },
	{ QP_U(qkey), 4, QP_K(qkey), 4 },
	{ QP_U(rq_psn), 4, QP_K(rq_psn), 4 },
	{ QP_U(sq_psn), 4, QP_K(sq_psn), 4 },
	{ QP_U(dest_qp_num), 4, QP_K(dest_qp_num), 4 },
	{ QP_U(qp_access_flags), 4, QP_K(qp_access_flags), 4 },
	{ QP_U(max_send_wr), 4, QP_K(cap.max_send_wr), 4 },
	{ QP_U(max_recv_wr), 4, QP_K(cap.max_recv_wr), 4 },
	{ QP_U(max_send_sge), 4, QP_K(cap.max_send_sge), 4 },
	{ QP_U(max_recv_sge), 4, QP_K(cap.max_recv_sge), 4 },
	{ QP_U(max_inline_data), 4, QP_K(cap.max_inline_data), 4 },
	{ QP_U(pkey_index), 2, QP_K(pkey_index), 2 },
	{ QP_U(alt_pkey_index), 2, QP_K(alt_pkey_index), 2 },
	{ QP_U(en_sqd_async_notify), 1, QP_K(en_sqd_async_notify), 1 },
	{ QP_U(sq_draining), 1, QP_K(sq_draining), 1 },
	{ QP_U(max_rd_atomic), 1, QP_K(max_rd_atomic), 1 },
	{ QP_U(max_dest_rd_atomic), 1, QP_K(max_dest_rd_atomic), 1 },
	{ QP_U(min_rnr_timer), 1, QP_K(min_rnr_timer), 1 },
	{ QP_U(port_num), 1, QP_K(port_num), 4 },
	{ QP_U(timeout), 1, QP_K(timeout), 1 },
	{ QP_U(retry_cnt), 1, QP_K(retry_cnt), 1 },
	{ QP_U(rnr_retry), 1, QP_K(rnr_retry), 1 },
	{ QP_U(alt_port_num), 1, QP_K(alt_port_num), 4 },
	{ QP_U(alt_timeout), 1, QP_K(alt_timeout), 1 },
};

static u32 field_get(const void *p, u8 size)
{
	switch (size) {
	case 1:
		return *(const u8 *)p;
	case 2:
		return *(const u16 *)p;
	default:
		return *(const u32 *)p;
	}
}

static void field_put(void *p, u8 size, u32 v)
{
	switch (size) {
	case 1:
		*(u8 *)p = v;
		break;
	case 2:
		*(u16 *)p = v;
		break;
	default:
		*(u32 *)p = v;
		break;
	}
}

/**
 * ib_copy_qp_attr_to_user() - QP attributes in the user layout
 * @device: the QP's device
 * @dst: the user layout; everything but qp_attr_mask, which the caller
 *	sets, is overwritten
 * @src: the attributes (both address vectors are read: the caller
 *	zeroes what it did not fill)
 */
void ib_copy_qp_attr_to_user(struct ib_device *device,
			     struct ib_uverbs_qp_attr *dst,
			     struct ib_qp_attr *src)
{
	u32 mask = dst->qp_attr_mask;
	unsigned int i;

	memset(dst, 0, sizeof(*dst));
	dst->qp_attr_mask = mask;
	for (i = 0; i < ARRAY_SIZE(qp_fields); i++)
		field_put((u8 *)dst + qp_fields[i].to, qp_fields[i].to_size,
			  field_get((u8 *)src + qp_fields[i].from,
				    qp_fields[i].from_size));
	ib_copy_ah_attr_to_user(device, &dst->ah_attr, &src->ah_attr);
	ib_copy_ah_attr_to_user(device, &dst->alt_ah_attr, &src->alt_ah_attr);
}
EXPORT_SYMBOL(ib_copy_qp_attr_to_user);

/*
 * The fields a path and its user layout share, by the same names and in
 * the same encoding, from @src to @dst (either way round).
 */
#define path_copy_common(dst, src) do {					\
	typeof(dst) d_ = (dst);						\
	typeof(src) s_ = (src);						\
									\
	d_->flow_label = s_->flow_label;				\
	d_->hop_limit = s_->hop_limit;					\
	d_->traffic_class = s_->traffic_class;				\
	d_->reversible = s_->reversible;				\
	d_->numb_path = s_->numb_path;					\
	d_->pkey = s_->pkey;						\
	d_->sl = s_->sl;						\
	d_->mtu_selector = s_->mtu_selector;				\
	d_->mtu = s_->mtu;						\
	d_->rate_selector = s_->rate_selector;				\
	d_->rate = s_->rate;						\
	d_->packet_life_time_selector = s_->packet_life_time_selector;	\
	d_->packet_life_time = s_->packet_life_time;			\
	d_->preference = s_->preference;				\
} while (0)

/**
 * ib_copy_path_rec_to_user() - a path in the user layout
 * @dst: the user layout, overwritten whole
 * @src: the path; a RoCE path has no LIDs (0), an OPA path's are cut to
 *	16 bits
 */
void ib_copy_path_rec_to_user(struct ib_user_path_rec *dst,
			      struct sa_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = htons(ntohl(sa_path_get_dlid(src)));
	dst->slid = htons(ntohl(sa_path_get_slid(src)));
	dst->raw_traffic = sa_path_get_raw_traffic(src);
	path_copy_common(dst, src);
}
EXPORT_SYMBOL(ib_copy_path_rec_to_user);

/**
 * ib_copy_path_rec_from_user() - a path user space gave
 * @dst: the path, overwritten whole; an InfiniBand path (rdma_set_ib_path()
 *	makes it a RoCE one on a RoCE port)
 * @src: the user layout
 */
void ib_copy_path_rec_from_user(struct sa_path_rec *dst,
				struct ib_user_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	sa_path_set_dlid(dst, ntohs(src->dlid));
	sa_path_set_slid(dst, ntohs(src->slid));
	sa_path_set_raw_traffic(dst, src->raw_traffic);
	path_copy_common(dst, src);
}
EXPORT_SYMBOL(ib_copy_path_rec_from_user);
