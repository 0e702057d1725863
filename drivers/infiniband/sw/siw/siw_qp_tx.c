// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP transmit: the send queue and the peer's READ requests become
 * FPDUs on the TCP stream.  One sender at a time writes the stream once
 * the QP is in RTS (tx_mutex), so FPDUs never interleave: tx_work, which
 * sends with blocking kernel_sendmsg() calls (the connection manager's
 * shutdown of the socket ends a send that waits on a peer that stopped
 * reading), or a process's doorbell, which sends small work requests
 * itself without ever waiting (siw_tx_doorbell()) and leaves the rest,
 * with what TCP did not take at once, to tx_work.
 *
 * Order per pass: a pending Terminate (then nothing else), our RTR message
 * of MPA revision 2, READ responses the peer waits for, then the send
 * queue.  A send queue work request is done (its element given back) once
 * its last byte is handed to TCP; a READ moves to the ORQ, where rx_work
 * completes it when the response is in.
 */
#include <linux/crc32c.h>
#include <linux/net.h>
#include <linux/unaligned.h>

#include "siw.h"

/* Work requests one pass of tx_work takes before it yields the worker */
#define SIW_TX_BUDGET	64
/* Pieces of one FPDU: header, payload runs, trailer */
#define SIW_TX_VECS	16

/**
 * struct siw_src - where the payload of a message comes from
 * @qp: the QP sending
 * @sge: the SGEs (one built from the request for a READ response)
 * @num_sge: how many
 * @idx: SGE being read
 * @off: bytes of it already sent
 * @mem: memory of @sge[@idx], a reference held
 * @access: rights the memory must grant (0 for a local source)
 * @inl: inline data, or NULL
 * @left: bytes of the message not yet sent
 */
struct siw_src {
	struct siw_qp		*qp;
	const struct siw_sge	*sge;
	u32			num_sge;
	u32			idx;
	u32			off;
	struct siw_mem		*mem;
	int			access;
	const u8		*inl;
	u32			left;
};

static void siw_src_done(struct siw_src *s)
{
	if (s->mem) {
		siw_mem_put(s->mem);
		s->mem = NULL;
	}
}

/*
 * Fill up to @maxv vectors with up to @max bytes of the message.  Return
 * the bytes or a negative errno with @why set (the source memory fails
 * its checks).
 */
static int siw_src_fill(struct siw_src *s, struct kvec *v, int maxv, u32 max,
			int *nv, struct siw_term_info *why)
{
	u32 got = 0;

	*nv = 0;
	if (s->inl) {
		u32 n = min(max, s->left);

		v[0].iov_base = (void *)s->inl;
		v[0].iov_len = n;
		s->inl += n;
		s->left -= n;
		*nv = n ? 1 : 0;
		return n;
	}
	while (got < max && s->left && *nv < maxv) {
		const struct siw_sge *sge = &s->sge[s->idx];
		u32 run;
		int ret;

		if (s->off == sge->length) {
			siw_src_done(s);
			s->idx++;
			s->off = 0;
			continue;
		}
		if (!s->mem) {
			s->mem = siw_mem_get(s->qp->sdev, sge->lkey);
			if (!s->mem) {
				why->layer = SIW_TERM_RDMAP;
				why->etype = SIW_ET_RDMAP_PROTECTION;
				why->ecode = SIW_EC_RDMAP_INVALID_STAG;
				return -EINVAL;
			}
			ret = siw_mem_check(s->mem, s->qp->base.pd, s->access,
					    sge->laddr, sge->length, why);
			if (ret)
				return ret;
		}
		run = min3(max - got, sge->length - s->off, s->left);
		v[*nv].iov_base = siw_mem_ptr(s->mem, sge->laddr + s->off,
					      &run);
		v[*nv].iov_len = run;
		(*nv)++;
		s->off += run;
		s->left -= run;
		got += run;
	}
	return got;
}

/*
 * A direct send's FPDU, the @nvec pieces of @total bytes copied whole into
 * qp->tx.fpdu: what TCP does not take without waiting is left there for
 * tx_work (siw_tx_rest()).  Return 0 or the socket's error.
 */
static int siw_tx_fpdu_direct(struct siw_qp *qp, struct socket *sock,
			      const struct kvec *vec, int nvec, size_t total)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	struct kvec all = { .iov_base = qp->tx.fpdu, .iov_len = total };
	u8 *p = qp->tx.fpdu;
	int i, ret;

	/* siw_tx_direct_ok() let through only what fits */
	if (WARN_ON_ONCE(total > sizeof(qp->tx.fpdu)))
		return -EMSGSIZE;
	for (i = 0; i < nvec; i++) {
		memcpy(p, vec[i].iov_base, vec[i].iov_len);
		p += vec[i].iov_len;
	}
	ret = kernel_sendmsg(sock, &msg, &all, 1, total);
	if (ret == -EAGAIN)
		ret = 0;
	if (ret < 0) {
		siw_qp_dbg(qp, "direct send of a %zu-byte FPDU: %d\n", total,
			   ret);
		return ret;
	}
	qp->tx.rest_off = ret;
	qp->tx.rest_len = total - ret;
	if (qp->tx.rest_len)
		siw_count(qp->sdev, SIW_CNT_TX_DIRECT_REST);
	return 0;
}

/* The part of a direct send's FPDU TCP did not take, before anything else. */
static int siw_tx_rest(struct siw_qp *qp)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct socket *sock = READ_ONCE(qp->sock);
	struct kvec v = {
		.iov_base = qp->tx.fpdu + qp->tx.rest_off,
		.iov_len = qp->tx.rest_len,
	};
	int ret;

	if (!sock)
		return -ENOTCONN;
	ret = kernel_sendmsg(sock, &msg, &v, 1, v.iov_len);
	if (ret != v.iov_len) {
		siw_qp_dbg(qp, "send of the last %zu bytes of an FPDU: %d\n",
			   v.iov_len, ret);
		return ret < 0 ? ret : -EPIPE;
	}
	qp->tx.rest_len = 0;
	return 0;
}

/*
 * Send one FPDU: @hlen header bytes in qp->tx.hdr (length field first,
 * filled in here), then the @nv payload pieces of @plen bytes.
 */
static int siw_tx_fpdu(struct siw_qp *qp, struct kvec *v, int nv,
		       unsigned int hlen, u32 plen, bool more)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0) };
	struct socket *sock = READ_ONCE(qp->sock);
	u32 ulpdu = hlen - SIW_MPA_LEN_BYTES + plen;
	unsigned int pad = siw_fpdu_pad(ulpdu);
	u8 trailer[3 + SIW_MPA_CRC_BYTES] = {};
	struct kvec vec[SIW_TX_VECS + 2];
	size_t total = hlen + plen + pad + SIW_MPA_CRC_BYTES;
	u32 crc = 0;
	int i, ret;

	if (!sock)
		return -ENOTCONN;
	put_unaligned_be16(ulpdu, qp->tx.hdr);
	vec[0].iov_base = qp->tx.hdr;
	vec[0].iov_len = hlen;
	for (i = 0; i < nv; i++)
		vec[i + 1] = v[i];
	if (qp->conn.crc) {
		crc = crc32c(~0U, qp->tx.hdr, hlen);
		for (i = 0; i < nv; i++)
			crc = crc32c(crc, v[i].iov_base, v[i].iov_len);
		crc = ~crc32c(crc, trailer, pad);
	}
	put_unaligned_le32(crc, trailer + pad);
	vec[nv + 1].iov_base = trailer;
	vec[nv + 1].iov_len = pad + SIW_MPA_CRC_BYTES;

	if (qp->tx.direct) {
		ret = siw_tx_fpdu_direct(qp, sock, vec, nv + 2, total);
		if (!ret)
			siw_count(qp->sdev, SIW_CNT_TX_FPDU);
		return ret;
	}
	ret = kernel_sendmsg(sock, &msg, vec, nv + 2, total);
	if (ret == total) {
		siw_count(qp->sdev, SIW_CNT_TX_FPDU);
		return 0;
	}
	siw_qp_dbg(qp, "send of a %zu-byte FPDU: %d\n", total, ret);
	return ret < 0 ? ret : -EPIPE;
}

static void siw_hdr_untagged(struct siw_qp *qp, u8 op, u32 qn, u32 mo,
			     bool last, u32 inv_stag)
{
	struct siw_hdr_untagged *h = (struct siw_hdr_untagged *)qp->tx.hdr;

	h->c.ddp = SIW_DDP_VER | (last ? SIW_DDP_LAST : 0);
	h->c.rdmap = SIW_RDMAP_VER | op;
	put_unaligned_be32(inv_stag, &h->inv_stag);
	put_unaligned_be32(qn, &h->qn);
	put_unaligned_be32(qp->tx.msn[qn], &h->msn);
	put_unaligned_be32(mo, &h->mo);
}

static void siw_hdr_tagged(struct siw_qp *qp, u8 op, u32 stag, u64 to,
			   bool last)
{
	struct siw_hdr_tagged *h = (struct siw_hdr_tagged *)qp->tx.hdr;

	h->c.ddp = SIW_DDP_VER | SIW_DDP_TAGGED | (last ? SIW_DDP_LAST : 0);
	h->c.rdmap = SIW_RDMAP_VER | op;
	put_unaligned_be32(stag, &h->stag);
	put_unaligned_be64(to, &h->to);
}

/*
 * Send a whole message: untagged (SEND kinds) when @tagged is false, else
 * tagged to @stag at @to.  Return 0, a negative errno of the socket, or
 * -EACCES with @why set for source memory that fails its checks.
 */
static int siw_tx_message(struct siw_qp *qp, struct siw_src *src, u8 op,
			  bool tagged, u32 stag, u64 to, u32 inv_stag,
			  struct siw_term_info *why)
{
	struct kvec v[SIW_TX_VECS];
	u32 off = 0;
	int nv, got, ret;

	do {
		bool last;

		got = siw_src_fill(src, v, SIW_TX_VECS, qp->fpdu_payload, &nv,
				   why);
		if (got < 0)
			return -EACCES;
		last = !src->left;
		if (tagged)
			siw_hdr_tagged(qp, op, stag, to + off, last);
		else
			siw_hdr_untagged(qp, op, SIW_QN_SEND, off, last,
					 inv_stag);
		ret = siw_tx_fpdu(qp, v, nv, tagged ? SIW_HDR_TAGGED_LEN :
				  SIW_HDR_UNTAGGED_LEN, got, !last);
		if (ret)
			return ret;
		off += got;
	} while (src->left);
	if (!tagged)
		qp->tx.msn[SIW_QN_SEND]++;
	return 0;
}

/* The payload of a READ request for @rr (its @msn is not in it). */
static void siw_put_read_req(struct siw_read_req *r,
			     const struct siw_read_resp *rr)
{
	put_unaligned_be32(rr->sink_stag, &r->sink_stag);
	put_unaligned_be64(rr->sink_to, &r->sink_to);
	put_unaligned_be32(rr->size, &r->size);
	put_unaligned_be32(rr->src_stag, &r->src_stag);
	put_unaligned_be64(rr->src_to, &r->src_to);
}

static int siw_tx_read_req(struct siw_qp *qp, const struct siw_read_resp *rr)
{
	siw_hdr_untagged(qp, SIW_RDMAP_READ_REQ, SIW_QN_READ, 0, true, 0);
	siw_put_read_req((struct siw_read_req *)(qp->tx.hdr +
						 SIW_HDR_UNTAGGED_LEN), rr);
	qp->tx.msn[SIW_QN_READ]++;
	return siw_tx_fpdu(qp, NULL, 0, SIW_HDR_MAX_LEN, 0, false);
}

/* The Terminate siw_qp_fatal() prepared. */
static void siw_tx_terminate(struct siw_qp *qp)
{
	struct kvec v = {
		.iov_base = qp->tx.term,
		.iov_len = qp->tx.term_len,
	};

	siw_hdr_untagged(qp, SIW_RDMAP_TERMINATE, SIW_QN_TERM, 0, true, 0);
	if (!siw_tx_fpdu(qp, &v, 1, SIW_HDR_UNTAGGED_LEN, qp->tx.term_len,
			 false))
		siw_count(qp->sdev, SIW_CNT_TERM_SENT);
	qp->tx.msn[SIW_QN_TERM]++;
}

/* The zero-length message that tells the responder we are ready. */
static int siw_tx_rtr(struct siw_qp *qp)
{
	const struct siw_read_resp none = {};
	struct siw_sqe *slot;

	qp->tx.rtr_pending = false;
	if (qp->conn.rtr == SIW_RTR_SEND_WRITE) {
		siw_hdr_tagged(qp, SIW_RDMAP_WRITE, 0, 0, true);
		return siw_tx_fpdu(qp, NULL, 0, SIW_HDR_TAGGED_LEN, 0, false);
	}
	/* An ORQ entry without VALID: its response completes nothing. */
	spin_lock_bh(&qp->orq_lock);
	slot = &qp->orq[qp->orq_put % SIW_MAX_ORD];
	memset(slot, 0, sizeof(*slot));
	slot->opcode = SIW_OP_READ;
	qp->orq_put++;
	spin_unlock_bh(&qp->orq_lock);
	return siw_tx_read_req(qp, &none);
}

/*
 * The FPDU header a READ request @rr arrived with, rebuilt into @buf for
 * the Terminate that refuses it (RFC 5040 4.8 wants it copied back).
 */
static void siw_read_req_hdr(const struct siw_read_resp *rr, u8 *buf)
{
	struct siw_hdr_untagged *h = (struct siw_hdr_untagged *)buf;

	put_unaligned_be16(SIW_HDR_MAX_LEN - SIW_MPA_LEN_BYTES, &h->c.mpa_len);
	h->c.ddp = SIW_DDP_VER | SIW_DDP_LAST;
	h->c.rdmap = SIW_RDMAP_VER | SIW_RDMAP_READ_REQ;
	put_unaligned_be32(0, &h->inv_stag);
	put_unaligned_be32(SIW_QN_READ, &h->qn);
	put_unaligned_be32(rr->msn, &h->msn);
	put_unaligned_be32(0, &h->mo);
	siw_put_read_req((struct siw_read_req *)(h + 1), rr);
}

/* Answer the oldest READ request; 1 when there was none. */
static int siw_tx_read_resp(struct siw_qp *qp)
{
	struct siw_read_resp rr;
	u8 req_hdr[SIW_HDR_MAX_LEN];
	struct siw_term_info why;
	struct siw_sge sge;
	struct siw_src src = {};
	int ret;

	spin_lock_bh(&qp->orq_lock);
	if (qp->irq_get == qp->irq_put) {
		spin_unlock_bh(&qp->orq_lock);
		return 1;
	}
	rr = qp->irq[qp->irq_get % SIW_MAX_IRD];
	spin_unlock_bh(&qp->orq_lock);

	sge.laddr = rr.src_to;
	sge.length = rr.size;
	sge.lkey = rr.src_stag;
	src.qp = qp;
	src.sge = &sge;
	src.num_sge = 1;
	src.left = rr.size;
	src.access = IB_ACCESS_REMOTE_READ;
	ret = siw_tx_message(qp, &src, SIW_RDMAP_READ_RESP, true,
			     rr.sink_stag, rr.sink_to, 0, &why);
	siw_src_done(&src);
	if (ret == -EACCES) {
		siw_count(qp->sdev, SIW_CNT_RX_PROTECTION);
		siw_qp_dbg(qp, "READ of %u bytes at STag %#x refused\n",
			   rr.size, rr.src_stag);
		siw_read_req_hdr(&rr, req_hdr);
		siw_qp_fatal(qp, &why, req_hdr, sizeof(req_hdr));
		return ret;
	}
	spin_lock_bh(&qp->orq_lock);
	qp->irq_get++;
	spin_unlock_bh(&qp->orq_lock);
	return ret;
}

/* The local checks of a work request, before anything goes out. */
static int siw_wqe_check(struct siw_qp *qp, const struct siw_sqe *w)
{
	u32 bytes = 0, i;

	switch (w->opcode) {
	case SIW_OP_WRITE:
	case SIW_OP_READ:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		break;
	case SIW_OP_READ_LOCAL_INV:
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		/* These name kernel objects: never from a process. */
		if (qp->kernel)
			break;
		fallthrough;
	default:
		siw_qp_dbg(qp, "opcode %u not supported\n", w->opcode);
		return -EINVAL;
	}
	if (w->flags & SIW_WQE_INLINE) {
		if (w->opcode != SIW_OP_SEND && w->opcode != SIW_OP_WRITE &&
		    w->opcode != SIW_OP_SEND_REMOTE_INV)
			return -EINVAL;
		return w->sge[0].length > SIW_MAX_INLINE ? -EINVAL : 0;
	}
	if (w->num_sge > SIW_MAX_SGE)
		return -EINVAL;
	if ((w->opcode == SIW_OP_READ || w->opcode == SIW_OP_READ_LOCAL_INV) &&
	    w->num_sge > 1)
		return -EINVAL;
	for (i = 0; i < w->num_sge; i++) {
		bytes += w->sge[i].length;
		if (bytes < w->sge[i].length)
			return -EINVAL;
	}
	return 0;
}

static u32 siw_wqe_bytes(const struct siw_sqe *w)
{
	u32 bytes = 0, i;

	if (w->flags & SIW_WQE_INLINE)
		return w->sge[0].length;
	for (i = 0; i < w->num_sge && i < SIW_MAX_SGE; i++)
		bytes += w->sge[i].length;
	return bytes;
}

/* Put a READ on the ORQ and send its request; -EAGAIN when it must wait. */
static int siw_tx_read(struct siw_qp *qp, const struct siw_sqe *w)
{
	const struct siw_sge *sink = w->num_sge ? &w->sge[0] : NULL;
	struct siw_read_resp rr = {};
	struct siw_term_info why;
	struct siw_mem *mem;
	int ret;

	if (sink && sink->length) {
		mem = siw_mem_get(qp->sdev, sink->lkey);
		if (!mem)
			return -EACCES;
		ret = siw_mem_check(mem, qp->base.pd, IB_ACCESS_LOCAL_WRITE,
				    sink->laddr, sink->length, &why);
		siw_mem_put(mem);
		if (ret)
			return -EACCES;
	}
	spin_lock_bh(&qp->orq_lock);
	if (qp->orq_put - qp->orq_get >= qp->orq_size) {
		spin_unlock_bh(&qp->orq_lock);
		return -EAGAIN;
	}
	qp->orq[qp->orq_put % SIW_MAX_ORD] = *w;
	qp->orq[qp->orq_put % SIW_MAX_ORD].flags |= SIW_WQE_VALID;
	qp->orq_put++;
	spin_unlock_bh(&qp->orq_lock);
	if (sink) {
		rr.sink_stag = sink->lkey;
		rr.sink_to = sink->laddr;
		rr.size = sink->length;
	}
	rr.src_stag = w->rkey;
	rr.src_to = w->raddr;
	return siw_tx_read_req(qp, &rr);
}

/*
 * Carry out @w.  Return 0 when done, 1 when it became a READ in the ORQ,
 * -EAGAIN when it must wait for the ORQ, -EACCES for a local protection
 * error, -EINVAL for a malformed request, else the socket's error.
 */
static int siw_tx_wqe(struct siw_qp *qp, const struct siw_sqe *w)
{
	struct siw_term_info why;
	struct siw_src src = {
		.qp = qp,
		.sge = w->sge,
		.num_sge = w->num_sge,
		.left = siw_wqe_bytes(w),
	};
	int ret;

	ret = siw_wqe_check(qp, w);
	if (ret)
		return ret;
	if (w->flags & SIW_WQE_INLINE)
		src.inl = (const u8 *)&w->sge[1];

	switch (w->opcode) {
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		/* A fenced READ waits for the READs before it. */
		if (w->flags & SIW_WQE_READ_FENCE &&
		    READ_ONCE(qp->orq_put) != READ_ONCE(qp->orq_get))
			return -EAGAIN;
		ret = siw_tx_read(qp, w);
		return ret ?: 1;
	case SIW_OP_WRITE:
		ret = siw_tx_message(qp, &src, SIW_RDMAP_WRITE, true, w->rkey,
				     w->raddr, 0, &why);
		break;
	case SIW_OP_SEND:
		ret = siw_tx_message(qp, &src, w->flags & SIW_WQE_SOLICITED ?
				     SIW_RDMAP_SEND_SE : SIW_RDMAP_SEND, false,
				     0, 0, 0, &why);
		break;
	case SIW_OP_SEND_REMOTE_INV:
		ret = siw_tx_message(qp, &src, w->flags & SIW_WQE_SOLICITED ?
				     SIW_RDMAP_SEND_SE_INV : SIW_RDMAP_SEND_INV,
				     false, 0, 0, w->rkey, &why);
		break;
	case SIW_OP_REG_MR:
		ret = siw_mem_fastreg(qp->sdev, qp->base.pd,
				      (struct ib_mr *)(uintptr_t)w->base_mr,
				      w->rkey, (int)w->access) ? -EACCES : 0;
		break;
	default:
		ret = siw_mem_invalidate(qp->sdev, qp->base.pd, w->rkey) ?
		      -EACCES : 0;
		break;
	}
	siw_src_done(&src);
	return ret;
}

/* The element at sq_get, given back to its producer. */
static void siw_sq_release(struct siw_qp *qp, struct siw_sqe *slot)
{
	qp->sq_get++;
	/*
	 * Free the slot before looking at the next one: a process rings its
	 * doorbell only when it sees the slot before its new one free.
	 */
	smp_store_mb(slot->flags, 0);
}

static enum siw_wc_status siw_tx_status(int err)
{
	switch (err) {
	case -EACCES:
		return SIW_WC_LOC_PROT_ERR;
	case -EINVAL:
		return SIW_WC_LOC_QP_OP_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}

/* The peer has READ requests waiting for their responses. */
static bool siw_tx_irq_pending(struct siw_qp *qp)
{
	bool pending;

	spin_lock_bh(&qp->orq_lock);
	pending = qp->irq_get != qp->irq_put;
	spin_unlock_bh(&qp->orq_lock);
	return pending;
}

/* A work request a doorbell may send itself: one small FPDU. */
static bool siw_tx_direct_ok(struct siw_qp *qp, const struct siw_sqe *w)
{
	switch (w->opcode) {
	case SIW_OP_READ:
		/* The request alone goes out. */
		return true;
	case SIW_OP_WRITE:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		return siw_wqe_bytes(w) <= min_t(u32, SIW_TX_DIRECT_MAX,
						 qp->fpdu_payload);
	default:
		return false;
	}
}

/*
 * One pass of the sender holding tx_mutex over what the QP has to send:
 * a pending Terminate, our RTR message, READ responses, then the send
 * queue.  A direct pass (qp->tx.direct) stops at the first thing that is
 * not a small work request.  Return true when tx_work should go on: its
 * budget is spent, or a direct pass stopped before the end.
 */
static bool siw_tx_pass(struct siw_qp *qp)
{
	bool direct = qp->tx.direct;
	struct siw_term_info why;
	int budget = SIW_TX_BUDGET;
	enum ib_qp_state state;
	struct siw_sqe *slot;
	bool term;
	int ret;

	if (!READ_ONCE(qp->sock))
		return false;
	while (budget--) {
		if (qp->tx.rest_len) {
			if (direct)
				return true;
			ret = siw_tx_rest(qp);
			if (ret)
				goto lost;
		}
		spin_lock_bh(&qp->orq_lock);
		term = qp->tx.term_pending && !qp->tx.term_done;
		qp->tx.term_done |= term && !direct;
		spin_unlock_bh(&qp->orq_lock);
		if (term) {
			if (direct)
				return true;
			siw_tx_terminate(qp);
			siw_cm_close(qp->cep, false);
			return false;
		}
		state = READ_ONCE(qp->state);
		if (state != IB_QPS_RTS && state != IB_QPS_SQD)
			return false;
		if (qp->tx.rtr_pending) {
			if (direct)
				return true;
			ret = siw_tx_rtr(qp);
			if (ret)
				goto lost;
			continue;
		}
		if (READ_ONCE(qp->tx.wait_rtr))
			return false;
		if (direct) {
			if (siw_tx_irq_pending(qp))
				return true;
		} else {
			ret = siw_tx_read_resp(qp);
			if (ret < 0)
				goto lost;
			if (!ret)
				continue;
		}

		slot = &qp->sq[qp->sq_get & (qp->sq_size - 1)];
		/* The producer released the element's contents with VALID. */
		if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID)) {
			if (state == IB_QPS_SQD)
				siw_cm_close(qp->cep, false);
			return false;
		}
		memcpy(&qp->tx.wqe, slot, sizeof(qp->tx.wqe));
		if (direct && !siw_tx_direct_ok(qp, &qp->tx.wqe))
			return true;
		ret = siw_tx_wqe(qp, &qp->tx.wqe);
		if (ret == -EAGAIN)
			return false;
		if (ret == -EACCES || ret == -EINVAL) {
			siw_qp_dbg(qp, "work request %llu: %d\n",
				   qp->tx.wqe.id, ret);
			siw_sq_release(qp, slot);
			qp->tx.wqe.flags |= SIW_WQE_SIGNALLED;
			siw_sq_complete(qp, &qp->tx.wqe, 0, siw_tx_status(ret));
			why.layer = SIW_TERM_RDMAP;
			why.etype = SIW_ET_RDMAP_CATASTROPHIC;
			why.ecode = SIW_EC_RDMAP_UNSPECIFIED;
			siw_qp_fatal(qp, &why, NULL, 0);
			continue;
		}
		if (ret < 0)
			goto lost;
		siw_sq_release(qp, slot);
		if (!ret)
			siw_sq_complete(qp, &qp->tx.wqe,
					siw_wqe_bytes(&qp->tx.wqe),
					SIW_WC_SUCCESS);
	}
	/* Out of budget: let other QPs have the worker. */
	return true;
lost:
	/* The socket failed: the connection manager hears of it from TCP. */
	siw_qp_dbg(qp, "transmit stopped: %d\n", ret);
	return false;
}

/**
 * siw_tx_work() - send what the QP has to send
 * @work: the QP's tx_work
 */
void siw_tx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, tx_work);
	bool again;

	mutex_lock(&qp->tx_mutex);
	again = siw_tx_pass(qp);
	mutex_unlock(&qp->tx_mutex);
	if (again)
		queue_work(siw_wq, &qp->tx_work);
}

/**
 * siw_tx_doorbell() - a process rang its QP's doorbell
 * @qp: the process's QP
 *
 * Sends the new work requests in the caller's context, so that a small
 * message does not wait for a worker to be scheduled: those of up to
 * SIW_TX_DIRECT_MAX bytes, one FPDU each, until one that is not or until
 * anything else is to be sent first.  It never waits for room in the
 * socket (a signal to the process must not cut an FPDU short): what TCP
 * does not take at once, and all the rest, is left to tx_work.
 *
 * Context: process context, no locks held.
 */
void siw_tx_doorbell(struct siw_qp *qp)
{
	bool again;

	/* Another sender is at it: have tx_work look at the new requests. */
	if (!mutex_trylock(&qp->tx_mutex)) {
		siw_qp_tx_kick(qp);
		return;
	}
	qp->tx.direct = true;
	again = siw_tx_pass(qp);
	qp->tx.direct = false;
	mutex_unlock(&qp->tx_mutex);
	if (again)
		siw_qp_tx_kick(qp);
}
