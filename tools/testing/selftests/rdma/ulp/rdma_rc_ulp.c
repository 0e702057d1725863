// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel ULP that drives one RC queue pair through the operations of the
 * verbs API, for interoperability tests between two hosts.  It is written
 * against the upstream verbs API only, so the same source builds against
 * this tree and against the stock kernel, and runs on either stack.
 *
 * Both ends load the module the same way.  Once it found a RoCE device it
 * creates a PD, two CQs, an RC QP in the INIT state and a fast-register MR
 * over a buffer (ib_alloc_mr() + ib_map_mr_sg(); the key it will carry is
 * chosen now, the IB_WR_REG_MR work request is posted once the QP can
 * send).  Its end of the connection is readable as
 *
 *   /sys/module/rdma_rc_ulp/parameters/local  "QPN PSN RKEY ADDR" (hex)
 *
 * The test hands it the peer's line the same way ("echo LINE > .../peer"):
 * the QP moves to RTR and RTS towards @dest/@dmac, the MR is registered,
 * and the active end (role=active) runs its cases, printed as KTAP:
 *
 *  - SEND of sizes around the path MTU (0 to several packets), each echoed
 *    back by the passive end and compared; SEND with immediate
 *  - RDMA WRITE (and WRITE with immediate, which the passive end answers
 *    with a SEND carrying the immediate and the length) into the peer's
 *    fast-reg MR, read back with a multi-packet RDMA READ and compared
 *  - FETCH_AND_ADD and CMP_AND_SWAP (matching and not matching) on a word
 *    of the peer's MR, checked through their results and an RDMA READ
 *  - an RNR case: the echo's receive WQE is posted only @rnr_delay_ms
 *    after the SEND, so the peer's echo first meets an RNR NAK
 *  - SEND with invalidate of the peer's rkey; the passive end registers
 *    its MR again under a new key and tells it, and WRITE/READ go on
 *    with that key
 *  - local IB_WR_REG_MR and IB_WR_LOCAL_INV on the active end's own MR
 *  - a round-trip time of small SENDs and an RDMA WRITE stream rate.
 *
 * The passive end answers: it echoes every SEND, answers WRITE with
 * immediate, and re-registers its MR after a SEND with invalidate.  It
 * prints how many messages it echoed when it is unloaded.
 */
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "rdma_ulp_util.h"

#define ULP_BUF_BYTES	(64 * 1024)
#define ULP_MR_PAGES	(ULP_BUF_BYTES / PAGE_SIZE + 1)
#define ULP_RX_DEPTH	16
#define ULP_SQ_DEPTH	64
#define ULP_TIMEOUT	(20 * HZ)
/* Offset of the word the atomics work on, inside the peer's MR */
#define ULP_ATOMIC_OFF	(ULP_BUF_BYTES - 64)
#define ULP_STREAM	32

static char *role = "passive";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "active (runs the cases) or passive (answers)");
static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to use (default: the first RoCE one)");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "the peer's IPv4 or IPv6 address (its GID)");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "the peer's MAC address");
static char *gid = "ipv4";
module_param(gid, charp, 0444);
MODULE_PARM_DESC(gid, "source GID: ipv4 (IPv4-mapped) or ipv6 (first IPv6 one)");
static uint mtu = 1024;
module_param(mtu, uint, 0444);
MODULE_PARM_DESC(mtu, "path MTU in bytes: 256, 512, 1024, 2048 or 4096");
static int psn = -1;
module_param(psn, int, 0444);
MODULE_PARM_DESC(psn, "first PSN this end sends (default: random)");
/*
 * 537 ms: long enough that a TCG guest the host stops for a second or two
 * does not run out of retries, short enough for the dropped-packet rounds.
 */
static uint timeout = 17;
module_param(timeout, uint, 0444);
MODULE_PARM_DESC(timeout, "local ACK timeout code (4.096 us << code)");
static uint retry_cnt = 7;
module_param(retry_cnt, uint, 0444);
MODULE_PARM_DESC(retry_cnt, "retransmissions before a message fails");
static uint min_rnr_timer = 20;
module_param(min_rnr_timer, uint, 0444);
MODULE_PARM_DESC(min_rnr_timer, "RNR NAK timer code this end asks for");
static uint rnr_delay_ms = 1000;
module_param(rnr_delay_ms, uint, 0444);
MODULE_PARM_DESC(rnr_delay_ms, "active: delay of the receive in the RNR case");
static bool atomic_write;
module_param(atomic_write, bool, 0444);
MODULE_PARM_DESC(atomic_write,
		 "active: run the ATOMIC_WRITE case (stock rxe 6.12 cannot post a kernel ATOMIC_WRITE: it refuses inline data for it and takes the 8 bytes from nowhere else)");
static uint iters = 16;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "active: round trips timed and WRITEs streamed");
static char local[64];
module_param_string(local, local, sizeof(local), 0444);
MODULE_PARM_DESC(local, "read-only: this end, \"QPN PSN RKEY ADDR\" in hex");

/* A posted work request the active end waits for. */
struct ulp_wait {
	struct ib_cqe		cqe;
	struct completion	done;
	struct ib_wc		wc;
};

/* A receive buffer of the passive end; the echo reuses it. */
struct ulp_rx {
	struct ib_cqe		cqe;		/* receive completion */
	struct ib_cqe		tx_cqe;		/* echo completion */
	void			*data;
	u64			dma;
};

struct ulp_peer {
	u32	qpn;
	u32	psn;
	u32	rkey;
	u64	addr;
};

/*
 * One instance, for the device the client picked.  Completions are handled
 * in softirq context: the active end only copies them and wakes its work;
 * the passive end posts its answers from there.
 */
struct ulp_ctx {
	struct ib_device	*dev;
	u32			port;
	int			sgid_index;
	bool			active;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_qp		*qp;
	u32			psn;

	/* the buffer the peer reaches through @mr */
	void			*mem;
	struct scatterlist	sg;
	bool			sg_mapped;
	struct ib_mr		*mr;
	struct ib_cqe		reg_cqe;
	atomic_t		reg_errors;

	/* the passive end's receive buffers */
	struct ulp_rx		rx[ULP_RX_DEPTH];
	atomic64_t		echoed;
	atomic_t		errors;

	/* the active end's local buffers (local_dma_lkey) */
	void			*tx;
	void			*rd;
	void			*echo;
	u64			tx_dma, rd_dma, echo_dma;

	/*
	 * What the active end waits for.  They live as long as the QP, so
	 * that a completion arriving after a wait gave up (or a flushed
	 * one) still finds valid memory.
	 */
	struct ulp_wait		w_tx;
	struct ulp_wait		w_rx;
	struct ib_cqe		quiet_cqe;	/* unsignalled WRs */
	bool			broken;		/* a wait failed: stop */

	struct ulp_peer		peer;
	struct work_struct	connect_work;
	unsigned int		ktap_n;
	unsigned int		failed;
};

static struct ulp_ctx *ulp;
static DEFINE_MUTEX(ulp_lock);		/* @ulp and @peer_line */
static char peer_line[64];

/* ---- the passive end ------------------------------------------------------ */

static int ulp_post_rx(struct ulp_ctx *c, struct ulp_rx *r)
{
	struct ib_sge sge = {
		.addr = r->dma,
		.length = ULP_BUF_BYTES,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->qp, &wr, NULL);
}

static void ulp_rx_echo_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;
	struct ulp_rx *r = container_of(wc->wr_cqe, struct ulp_rx, tx_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info("# rdma_rc_ulp: echo status %d\n", wc->status);
		atomic_inc(&c->errors);
		return;
	}
	atomic64_inc(&c->echoed);
	if (ulp_post_rx(c, r))
		atomic_inc(&c->errors);
}

static void ulp_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS) {
		pr_info("# rdma_rc_ulp: IB_WR_REG_MR status %d\n", wc->status);
		atomic_inc(&c->reg_errors);
	}
}

/* Post IB_WR_REG_MR of @c->mr under its current key, then @next if any. */
static int ulp_post_reg(struct ulp_ctx *c, struct ib_cqe *cqe,
			struct ib_send_wr *next)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
			.next = next,
		},
		.mr = c->mr,
		.key = c->mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC,
	};

	return ib_post_send(c->qp, &wr.wr, NULL);
}

/*
 * A request arrived: a SEND is echoed (with its immediate, if it had one),
 * a WRITE with immediate is answered with a SEND of the immediate and the
 * length, a SEND with invalidate makes the MR register again under the
 * next key, answered with the old and the new key.
 */
static void ulp_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;
	struct ulp_rx *r = container_of(wc->wr_cqe, struct ulp_rx, cqe);
	struct ib_sge sge = {
		.addr = r->dma,
		.length = wc->byte_len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &r->tx_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	__be32 *w = r->data;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_info("# rdma_rc_ulp: receive status %d\n", wc->status);
			atomic_inc(&c->errors);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(c->dev, r->dma, ULP_BUF_BYTES,
				   DMA_BIDIRECTIONAL);
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		wr.opcode = IB_WR_SEND_WITH_IMM;
		wr.ex.imm_data = wc->ex.imm_data;
	}
	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM) {
		w[0] = cpu_to_be32(wc->byte_len);
		sge.length = sizeof(*w);
	}
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		w[0] = cpu_to_be32(wc->ex.invalidate_rkey);
		w[1] = cpu_to_be32(c->mr->rkey);
		if (wc->ex.invalidate_rkey == c->mr->rkey)
			ib_update_fast_reg_key(c->mr,
					       ib_inc_rkey(c->mr->rkey));
		w[2] = cpu_to_be32(c->mr->rkey);
		sge.length = 3 * sizeof(*w);
		ib_dma_sync_single_for_device(c->dev, r->dma, sge.length,
					      DMA_BIDIRECTIONAL);
		ret = ulp_post_reg(c, &c->reg_cqe, &wr);
	} else {
		ib_dma_sync_single_for_device(c->dev, r->dma, sge.length,
					      DMA_BIDIRECTIONAL);
		ret = ib_post_send(c->qp, &wr, NULL);
	}
	if (ret) {
		pr_info("# rdma_rc_ulp: cannot answer: %d\n", ret);
		atomic_inc(&c->errors);
	}
}

/* ---- the active end ------------------------------------------------------- */

static void ulp_wait_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_wait *w = container_of(wc->wr_cqe, struct ulp_wait, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void ulp_wait_init(struct ulp_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->cqe.done = ulp_wait_done;
	init_completion(&w->done);
}

static void ulp_quiet_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS) {
		pr_info("# rdma_rc_ulp: unsignalled WR: status %d\n",
			wc->status);
		c->broken = true;
	}
}

/* Wait for @w; 0 if it completed with success. */
static int ulp_wait(struct ulp_ctx *c, struct ulp_wait *w, const char *what)
{
	if (!wait_for_completion_timeout(&w->done, ULP_TIMEOUT)) {
		pr_info("# rdma_rc_ulp: %s: no completion\n", what);
		c->broken = true;
		return -ETIMEDOUT;
	}
	if (w->wc.status != IB_WC_SUCCESS) {
		c->broken = true;
		pr_info("# rdma_rc_ulp: %s: status %d (%s)\n", what,
			w->wc.status, ib_wc_status_msg(w->wc.status));
		return -EIO;
	}
	return 0;
}

static void ulp_result(struct ulp_ctx *c, int ret, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	c->ktap_n++;
	if (ret) {
		c->failed++;
		pr_info("not ok %u %pV # error %d\n", c->ktap_n, &vaf, ret);
	} else {
		pr_info("ok %u %pV\n", c->ktap_n, &vaf);
	}
	va_end(args);
}

static int ulp_post_echo_rx(struct ulp_ctx *c, struct ulp_wait *w)
{
	struct ib_sge sge = {
		.addr = c->echo_dma,
		.length = ULP_BUF_BYTES,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (c->broken)
		return -ECANCELED;
	ulp_wait_init(w);
	return ib_post_recv(c->qp, &wr, NULL);
}

/* Post one send work request of @len bytes of @dma (0: no gather entry). */
static int ulp_post(struct ulp_ctx *c, struct ulp_wait *w,
		    enum ib_wr_opcode op, u64 dma, u32 len, u64 raddr,
		    u32 rkey, u32 ex, bool signaled)
{
	struct ib_sge sge = {
		.addr = dma,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_atomic_wr awr = {};
	struct ib_rdma_wr rwr = {};
	struct ib_send_wr *wr = &rwr.wr;

	if (c->broken)
		return -ECANCELED;
	if (w)
		ulp_wait_init(w);
	if (op == IB_WR_ATOMIC_CMP_AND_SWP || op == IB_WR_ATOMIC_FETCH_AND_ADD)
		wr = &awr.wr;
	/* a flushed unsignalled WR completes too: it needs a cqe */
	wr->wr_cqe = w ? &w->cqe : &c->quiet_cqe;
	wr->opcode = op;
	wr->send_flags = signaled ? IB_SEND_SIGNALED : 0;
	wr->sg_list = len ? &sge : NULL;
	wr->num_sge = len ? 1 : 0;
	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr->ex.imm_data = cpu_to_be32(ex);
	if (op == IB_WR_SEND_WITH_INV)
		wr->ex.invalidate_rkey = ex;
	rwr.remote_addr = raddr;
	rwr.rkey = rkey;
	awr.remote_addr = raddr;
	awr.rkey = rkey;
	return ib_post_send(c->qp, wr, NULL);
}

static void ulp_fill(void *buf, u32 len, u32 seed)
{
	u8 *p = buf;
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 131 + i * 7 + (i >> 8));
}

/* SEND @len bytes (opcode @op), wait for the echo and compare it. */
static int ulp_case_send(struct ulp_ctx *c, enum ib_wr_opcode op, u32 len,
			 u32 imm, unsigned int rnr_delay)
{
	struct ulp_wait *tx = &c->w_tx, *rx = &c->w_rx;
	int ret;

	ulp_fill(c->tx, len, len + imm);
	/* the whole buffer: a byte past the echo must stay 0xee */
	memset(c->echo, 0xee, ULP_BUF_BYTES);
	if (!rnr_delay) {
		ret = ulp_post_echo_rx(c, rx);
		if (ret)
			return ret;
	}
	ret = ulp_post(c, tx, op, c->tx_dma, len, 0, 0, imm, true);
	if (ret)
		return ret;
	if (rnr_delay) {
		msleep(rnr_delay);
		ret = ulp_post_echo_rx(c, rx);
		if (ret)
			return ret;
	}
	ret = ulp_wait(c, tx, "send");
	if (!ret)
		ret = ulp_wait(c, rx, "echo");
	if (ret)
		return ret;
	if (rx->wc.byte_len != len || rx->wc.opcode != IB_WC_RECV ||
	    memcmp(c->echo, c->tx, len) ||
	    (len < ULP_BUF_BYTES && ((u8 *)c->echo)[len] != 0xee)) {
		pr_info("# rdma_rc_ulp: echo of %u bytes: %u bytes, opcode %d\n",
			len, rx->wc.byte_len, rx->wc.opcode);
		return -EBADMSG;
	}
	if (op == IB_WR_SEND_WITH_IMM &&
	    (!(rx->wc.wc_flags & IB_WC_WITH_IMM) ||
	     be32_to_cpu(rx->wc.ex.imm_data) != imm))
		return -EBADMSG;
	return 0;
}

/* RDMA READ @len bytes of the peer's MR at @off into @c->rd. */
static int ulp_read(struct ulp_ctx *c, u32 off, u32 len)
{
	struct ulp_wait *w = &c->w_tx;
	int ret;

	ret = ulp_post(c, w, IB_WR_RDMA_READ, c->rd_dma, len,
		       c->peer.addr + off, c->peer.rkey, 0, true);
	return ret ?: ulp_wait(c, w, "read");
}

/* RDMA WRITE (or WRITE with immediate) @len bytes, read them back. */
static int ulp_case_write(struct ulp_ctx *c, u32 off, u32 len, u32 imm)
{
	enum ib_wr_opcode op = imm ? IB_WR_RDMA_WRITE_WITH_IMM :
				     IB_WR_RDMA_WRITE;
	struct ulp_wait *w = &c->w_tx, *rx = &c->w_rx;
	int ret;

	ulp_fill(c->tx, len, len ^ off ^ imm);
	if (imm) {
		ret = ulp_post_echo_rx(c, rx);
		if (ret)
			return ret;
	}
	ret = ulp_post(c, w, op, c->tx_dma, len, c->peer.addr + off,
		       c->peer.rkey, imm, true);
	if (ret)
		return ret;
	ret = ulp_wait(c, w, "write");
	if (!ret && imm) {
		ret = ulp_wait(c, rx, "write immediate answer");
		if (!ret && (!(rx->wc.wc_flags & IB_WC_WITH_IMM) ||
			     be32_to_cpu(rx->wc.ex.imm_data) != imm ||
			     rx->wc.byte_len != 4 ||
			     be32_to_cpu(*(__be32 *)c->echo) != len))
			ret = -EBADMSG;
	}
	if (ret)
		return ret;
	memset(c->rd, 0, len);
	ret = ulp_read(c, off, len);
	if (ret)
		return ret;
	return memcmp(c->rd, c->tx, len) ? -EBADMSG : 0;
}

/* Post @wr, signalled, and wait for its completion. */
static int ulp_post_wait(struct ulp_ctx *c, struct ib_send_wr *wr,
			 const char *what)
{
	struct ulp_wait *w = &c->w_tx;
	int ret;

	if (c->broken)
		return -ECANCELED;
	ulp_wait_init(w);
	wr->wr_cqe = &w->cqe;
	ret = ib_post_send(c->qp, wr, NULL);
	return ret ?: ulp_wait(c, w, what);
}

/* One atomic operation on the peer's word; its result goes to @c->rd. */
static int ulp_atomic(struct ulp_ctx *c, enum ib_wr_opcode op, u64 cmp_add,
		      u64 swap, u64 *orig)
{
	struct ib_sge sge = {
		.addr = c->rd_dma,
		.length = sizeof(u64),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = c->peer.addr + ULP_ATOMIC_OFF,
		.rkey = c->peer.rkey,
		.compare_add = cmp_add,
		.swap = swap,
	};
	int ret = ulp_post_wait(c, &wr.wr, "atomic");

	if (!ret)
		*orig = *(u64 *)c->rd;
	return ret;
}

/* ATOMIC_WRITE @val to the peer's word, as inline data. */
static int ulp_atomic_write(struct ulp_ctx *c, u64 val)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)&val,
		.length = sizeof(val),
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_ATOMIC_WRITE,
			.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = c->peer.addr + ULP_ATOMIC_OFF,
		.rkey = c->peer.rkey,
	};

	return ulp_post_wait(c, &wr.wr, "atomic write");
}

static int ulp_read_word(struct ulp_ctx *c, u64 *v)
{
	int ret = ulp_read(c, ULP_ATOMIC_OFF, sizeof(u64));

	if (!ret)
		*v = *(u64 *)c->rd;
	return ret;
}

static void ulp_case_atomics(struct ulp_ctx *c)
{
	u64 v0, v, swap = 0x0123456789abcdefULL;
	int ret;

	ret = ulp_read_word(c, &v0);
	ulp_result(c, ret, "RDMA READ of the atomic word (%#llx)", v0);
	ret = ulp_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 5, 0, &v);
	if (!ret && v != v0)
		ret = -EBADMSG;
	ulp_result(c, ret, "FETCH_AND_ADD returns the old value (%#llx)", v);
	ret = ulp_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0 + 5, swap, &v);
	if (!ret && v != v0 + 5)
		ret = -EBADMSG;
	ulp_result(c, ret, "CMP_AND_SWP that matches returns the old value (%#llx)",
		   v);
	ret = ulp_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0, 7, &v);
	if (!ret && v != swap)
		ret = -EBADMSG;
	ulp_result(c, ret, "CMP_AND_SWP that does not match leaves the word (%#llx)",
		   v);
	ret = ulp_read_word(c, &v);
	if (!ret && v != swap)
		ret = -EBADMSG;
	ulp_result(c, ret, "RDMA READ sees the swapped word (%#llx)", v);
	if (!atomic_write)
		return;
	ret = ulp_atomic_write(c, ~swap);
	if (!ret)
		ret = ulp_read_word(c, &v);
	if (!ret && v != ~swap)
		ret = -EBADMSG;
	ulp_result(c, ret, "ATOMIC_WRITE stores the word, RDMA READ sees it (%#llx)",
		   v);
	ret = ulp_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 1, 0, &v);
	if (!ret && v != ~swap)
		ret = -EBADMSG;
	ulp_result(c, ret, "FETCH_AND_ADD after it returns the written word (%#llx)",
		   v);
}

/* SEND with invalidate of the peer's rkey: it answers old and new key. */
static int ulp_case_send_inv(struct ulp_ctx *c)
{
	struct ulp_wait *tx = &c->w_tx, *rx = &c->w_rx;
	__be32 *k = c->echo;
	int ret;

	ret = ulp_post_echo_rx(c, rx);
	if (ret)
		return ret;
	ulp_fill(c->tx, 8, 3);
	ret = ulp_post(c, tx, IB_WR_SEND_WITH_INV, c->tx_dma, 8, 0, 0,
		       c->peer.rkey, true);
	if (ret)
		return ret;
	ret = ulp_wait(c, tx, "send with invalidate");
	if (!ret)
		ret = ulp_wait(c, rx, "invalidate answer");
	if (ret)
		return ret;
	if (rx->wc.byte_len != 12 || be32_to_cpu(k[0]) != c->peer.rkey ||
	    be32_to_cpu(k[1]) != c->peer.rkey ||
	    be32_to_cpu(k[2]) == c->peer.rkey) {
		pr_info("# rdma_rc_ulp: invalidate answer %u bytes: %#x %#x %#x (rkey %#x)\n",
			rx->wc.byte_len, be32_to_cpu(k[0]), be32_to_cpu(k[1]),
			be32_to_cpu(k[2]), c->peer.rkey);
		return -EBADMSG;
	}
	c->peer.rkey = be32_to_cpu(k[2]);
	return 0;
}

/* IB_WR_LOCAL_INV then IB_WR_REG_MR under the next key, on our own MR. */
static int ulp_case_local_ops(struct ulp_ctx *c)
{
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = c->mr->rkey,
	};
	struct ulp_wait *w = &c->w_tx;
	int ret;

	if (c->broken)
		return -ECANCELED;
	ulp_wait_init(w);
	inv.wr_cqe = &w->cqe;
	ret = ib_post_send(c->qp, &inv, NULL);
	if (!ret)
		ret = ulp_wait(c, w, "IB_WR_LOCAL_INV");
	if (!ret && w->wc.opcode != IB_WC_LOCAL_INV)
		ret = -EBADMSG;
	if (ret)
		return ret;
	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	ulp_wait_init(w);
	ret = ulp_post_reg(c, &w->cqe, NULL);
	if (!ret)
		ret = ulp_wait(c, w, "IB_WR_REG_MR");
	if (!ret && w->wc.opcode != IB_WC_REG_MR)
		ret = -EBADMSG;
	return ret;
}

static void ulp_run_cases(struct ulp_ctx *c)
{
	static const u32 sizes[] = { 0, 1, 2, 3 };
	u32 m = mtu, len, i;
	u64 t0, us;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ret = ulp_case_send(c, IB_WR_SEND, sizes[i], 0, 0);
		ulp_result(c, ret, "SEND %u bytes echoed", sizes[i]);
	}
	{
		const u32 big[] = { m - 1, m, m + 1, 2 * m, 3 * m + 5,
				    16 * m + 3, ULP_BUF_BYTES };

		for (i = 0; i < ARRAY_SIZE(big); i++) {
			ret = ulp_case_send(c, IB_WR_SEND, big[i], 0, 0);
			ulp_result(c, ret, "SEND %u bytes (%u packets) echoed",
				   big[i], DIV_ROUND_UP(big[i], m));
		}
	}
	ret = ulp_case_send(c, IB_WR_SEND_WITH_IMM, 0, 0x1234abcd, 0);
	ulp_result(c, ret, "SEND with immediate, 0 bytes");
	ret = ulp_case_send(c, IB_WR_SEND_WITH_IMM, 2 * m + 7, 0x5a5a0001, 0);
	ulp_result(c, ret, "SEND with immediate, %u bytes", 2 * m + 7);

	{
		const u32 wl[][2] = { { 0, 1 }, { 8, m }, { 3, m + 1 },
				      { 100, 5 * m + 3 }, { 0, 32 * 1024 },
				      { 0, ULP_ATOMIC_OFF } };

		for (i = 0; i < ARRAY_SIZE(wl); i++) {
			ret = ulp_case_write(c, wl[i][0], wl[i][1], 0);
			ulp_result(c, ret, "RDMA WRITE %u bytes at +%u, RDMA READ back",
				   wl[i][1], wl[i][0]);
		}
	}
	ret = ulp_case_write(c, 16, 2 * m + 1, 0x77665544);
	ulp_result(c, ret, "RDMA WRITE with immediate %u bytes, answered, read back",
		   2 * m + 1);

	ulp_case_atomics(c);

	ret = ulp_case_send(c, IB_WR_SEND, 3 * m, 0, rnr_delay_ms);
	ulp_result(c, ret, "SEND echoed after the echo met an RNR NAK (%u ms)",
		   rnr_delay_ms);

	ret = ulp_case_send_inv(c);
	ulp_result(c, ret, "SEND with invalidate; the peer registers again (rkey %#x)",
		   c->peer.rkey);
	ret = ulp_case_write(c, 0, 4 * m, 0);
	ulp_result(c, ret, "RDMA WRITE and READ with the new rkey");

	ret = ulp_case_local_ops(c);
	ulp_result(c, ret, "IB_WR_LOCAL_INV and IB_WR_REG_MR on the own MR");

	/* Round-trip time of 64-byte SENDs */
	t0 = ktime_get_ns();
	for (i = 0, ret = 0; i < iters && !ret; i++)
		ret = ulp_case_send(c, IB_WR_SEND, 64, 0, 0);
	us = div_u64(ktime_get_ns() - t0, 1000);
	ulp_result(c, ret, "%u SEND round trips of 64 bytes", iters);
	if (!ret)
		pr_info("# rdma_rc_ulp: %llu us per 64-byte SEND round trip\n",
			div_u64(us, iters));

	/* A stream of WRITEs, only the last one signalled, then a READ. */
	len = ULP_BUF_BYTES / 2;
	ulp_fill(c->tx, len, 99);
	t0 = ktime_get_ns();
	for (i = 0, ret = 0; i < iters && !ret; i++) {
		struct ulp_wait *w = &c->w_tx;
		bool last = i == iters - 1;

		ret = ulp_post(c, last ? w : NULL, IB_WR_RDMA_WRITE, c->tx_dma,
			       len, c->peer.addr, c->peer.rkey, 0, last);
		if (!ret && last)
			ret = ulp_wait(c, w, "write stream");
	}
	us = div_u64(ktime_get_ns() - t0, 1000);
	if (!ret) {
		memset(c->rd, 0, len);
		ret = ulp_read(c, 0, len);
		if (!ret && memcmp(c->rd, c->tx, len))
			ret = -EBADMSG;
	}
	ulp_result(c, ret, "stream of %u RDMA WRITEs of %u bytes, read back",
		   iters, len);
	if (!ret)
		pr_info("# rdma_rc_ulp: RDMA WRITE stream %llu KB/s\n",
			div_u64((u64)iters * len * 1000, max_t(u64, us, 1)));
}

#define ULP_NCASES	31

static void ulp_active_run(struct ulp_ctx *c)
{
	pr_info("KTAP version 1\n");
	pr_info("# suite: rdma_rc_ulp active on %s qpn %#x psn %#x to qpn %#x psn %#x, mtu %u\n",
		dev_name(&c->dev->dev), c->qp->qp_num, c->psn, c->peer.qpn,
		c->peer.psn, mtu);
	pr_info("1..%u\n", ULP_NCASES + (atomic_write ? 2 : 0));
	ulp_run_cases(c);
	while (c->ktap_n < ULP_NCASES + (atomic_write ? 2 : 0))
		ulp_result(c, -ENODATA, "case missing");
	pr_info("# rdma_rc_ulp: pass:%u fail:%u\n", c->ktap_n - c->failed,
		c->failed);
}

/* ---- set-up ---------------------------------------------------------------- */

static int ulp_connect(struct ulp_ctx *c)
{
	struct ib_qp_attr qa = {};
	union ib_gid dgid;
	u8 mac[ETH_ALEN];
	int ret, mask;

	ret = rdma_ulp_parse_peer(dest, dmac, &dgid, mac);
	if (ret)
		return ret;
	if (c->sgid_index < 0)
		return -ENODATA;
	qa.qp_state = IB_QPS_RTR;
	qa.path_mtu = ib_mtu_int_to_enum(mtu);
	qa.dest_qp_num = c->peer.qpn;
	qa.rq_psn = c->peer.psn;
	qa.max_dest_rd_atomic = 4;
	qa.min_rnr_timer = min_rnr_timer;
	rdma_ulp_roce_ah_attr(c->dev, c->port, &dgid, c->sgid_index, mac,
			      &qa.ah_attr);
	mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	       IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	ret = ib_modify_qp(c->qp, &qa, mask);
	if (ret) {
		pr_info("# rdma_rc_ulp: to RTR: %d\n", ret);
		return ret;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = c->psn;
	qa.timeout = timeout;
	qa.retry_cnt = retry_cnt;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 4;
	mask = IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
	       IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
	ret = ib_modify_qp(c->qp, &qa, mask);
	if (ret) {
		pr_info("# rdma_rc_ulp: to RTS: %d\n", ret);
		return ret;
	}
	c->reg_cqe.done = ulp_reg_done;
	c->quiet_cqe.done = ulp_quiet_done;
	return ulp_post_reg(c, &c->reg_cqe, NULL);
}

static void ulp_connect_work(struct work_struct *work)
{
	struct ulp_ctx *c = container_of(work, struct ulp_ctx, connect_work);
	int ret;

	ret = ulp_connect(c);
	pr_info("# rdma_rc_ulp: connect to qpn %#x psn %#x rkey %#x addr %#llx: %d\n",
		c->peer.qpn, c->peer.psn, c->peer.rkey, c->peer.addr, ret);
	if (ret || !c->active)
		return;
	ulp_active_run(c);
}

static int ulp_alloc_buf(struct ulp_ctx *c, void **buf, u64 *dma)
{
	*buf = kzalloc(ULP_BUF_BYTES, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(c->dev, *buf, ULP_BUF_BYTES,
				 DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void ulp_free_buf(struct ulp_ctx *c, void **buf, u64 dma)
{
	if (!*buf)
		return;
	ib_dma_unmap_single(c->dev, dma, ULP_BUF_BYTES, DMA_BIDIRECTIONAL);
	kfree(*buf);
	*buf = NULL;
}

static void ulp_teardown(struct ulp_ctx *c)
{
	unsigned int i;

	cancel_work_sync(&c->connect_work);
	if (c->qp)
		ib_destroy_qp(c->qp);
	if (c->mr)
		ib_dereg_mr(c->mr);
	if (c->recv_cq)
		ib_free_cq(c->recv_cq);
	if (c->send_cq)
		ib_free_cq(c->send_cq);
	if (c->sg_mapped)
		ib_dma_unmap_sg(c->dev, &c->sg, 1, DMA_BIDIRECTIONAL);
	kfree(c->mem);
	for (i = 0; i < ULP_RX_DEPTH; i++)
		ulp_free_buf(c, &c->rx[i].data, c->rx[i].dma);
	ulp_free_buf(c, &c->tx, c->tx_dma);
	ulp_free_buf(c, &c->rd, c->rd_dma);
	ulp_free_buf(c, &c->echo, c->echo_dma);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	kfree(c);
}

/* The buffer the peer reaches, and its fast-reg MR (not registered yet). */
static int ulp_setup_mr(struct ulp_ctx *c)
{
	u64 *word;
	int n;

	c->mem = kzalloc(ULP_BUF_BYTES, GFP_KERNEL);
	if (!c->mem)
		return -ENOMEM;
	word = c->mem + ULP_ATOMIC_OFF;
	*word = 0x1000;
	sg_init_one(&c->sg, c->mem, ULP_BUF_BYTES);
	if (ib_dma_map_sg(c->dev, &c->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -ENOMEM;
	c->sg_mapped = true;
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, ULP_MR_PAGES);
	if (IS_ERR(c->mr)) {
		n = PTR_ERR(c->mr);
		c->mr = NULL;
		return n;
	}
	n = ib_map_mr_sg(c->mr, &c->sg, 1, NULL, PAGE_SIZE);
	if (n != 1)
		return n < 0 ? n : -EINVAL;
	if (c->mr->length != ULP_BUF_BYTES)
		return -EINVAL;
	/* The key the registration will carry: the peer learns it now. */
	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	return 0;
}

static int ulp_setup(struct ulp_ctx *c)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = ULP_SQ_DEPTH,
			.max_recv_wr = ULP_RX_DEPTH + 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			/* ATOMIC_WRITE's 8 bytes: stock rxe takes them inline */
			.max_inline_data = sizeof(u64),
		},
	};
	struct ib_qp_attr qa = {};
	unsigned int i;
	int ret;

	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	c->send_cq = ib_alloc_cq(c->dev, c, 2 * ULP_SQ_DEPTH, 0,
				 IB_POLL_SOFTIRQ);
	if (IS_ERR(c->send_cq)) {
		ret = PTR_ERR(c->send_cq);
		c->send_cq = NULL;
		return ret;
	}
	c->recv_cq = ib_alloc_cq(c->dev, c, 2 * ULP_RX_DEPTH, 0,
				 IB_POLL_SOFTIRQ);
	if (IS_ERR(c->recv_cq)) {
		ret = PTR_ERR(c->recv_cq);
		c->recv_cq = NULL;
		return ret;
	}
	init.send_cq = c->send_cq;
	init.recv_cq = c->recv_cq;
	c->qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(c->qp)) {
		ret = PTR_ERR(c->qp);
		c->qp = NULL;
		return ret;
	}
	qa.qp_state = IB_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = c->port;
	qa.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
			     IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_modify_qp(c->qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	ret = ulp_setup_mr(c);
	if (ret)
		return ret;
	if (c->active) {
		ret = ulp_alloc_buf(c, &c->tx, &c->tx_dma);
		if (!ret)
			ret = ulp_alloc_buf(c, &c->rd, &c->rd_dma);
		if (!ret)
			ret = ulp_alloc_buf(c, &c->echo, &c->echo_dma);
		return ret;
	}
	for (i = 0; i < ULP_RX_DEPTH; i++) {
		c->rx[i].cqe.done = ulp_rx_done;
		c->rx[i].tx_cqe.done = ulp_rx_echo_done;
		ret = ulp_alloc_buf(c, &c->rx[i].data, &c->rx[i].dma);
		if (!ret)
			ret = ulp_post_rx(c, &c->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Parse "QPN PSN RKEY ADDR" (hex) into @c->peer and connect. */
static int ulp_take_peer(struct ulp_ctx *c, const char *line)
{
	if (sscanf(line, "%x %x %x %llx", &c->peer.qpn, &c->peer.psn,
		   &c->peer.rkey, &c->peer.addr) != 4)
		return -EINVAL;
	c->peer.psn &= 0xffffff;
	queue_work(system_unbound_wq, &c->connect_work);
	return 0;
}

static int ulp_peer_set(const char *val, const struct kernel_param *kp)
{
	int ret = 0;

	mutex_lock(&ulp_lock);
	strscpy(peer_line, val, sizeof(peer_line));
	if (ulp)
		ret = ulp_take_peer(ulp, peer_line);
	mutex_unlock(&ulp_lock);
	return ret;
}

static int ulp_peer_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&ulp_lock);
	n = sysfs_emit(buf, "%s\n", peer_line);
	mutex_unlock(&ulp_lock);
	return n;
}

static const struct kernel_param_ops ulp_peer_ops = {
	.set = ulp_peer_set,
	.get = ulp_peer_get,
};
module_param_cb(peer, &ulp_peer_ops, NULL, 0644);
MODULE_PARM_DESC(peer, "the peer's \"QPN PSN RKEY ADDR\" (hex): connects");

static int ulp_add_one(struct ib_device *dev)
{
	struct ulp_ctx *c;
	int ret;

	if (ulp || (ibdev && strcmp(ibdev, dev_name(&dev->dev))))
		return 0;
	if (!rdma_protocol_roce(dev, rdma_start_port(dev)))
		return 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->dev = dev;
	c->port = rdma_start_port(dev);
	c->active = !strcmp(role, "active");
	c->psn = (psn >= 0 ? psn : get_random_u32()) & 0xffffff;
	INIT_WORK(&c->connect_work, ulp_connect_work);
	ret = ulp_setup(c);
	if (ret) {
		pr_info("# rdma_rc_ulp: set-up on %s failed: %d\n",
			dev_name(&dev->dev), ret);
		ulp_teardown(c);
		return ret;
	}
	c->sgid_index = rdma_ulp_find_sgid(c->dev, c->port,
					   !strcmp(gid, "ipv4"));
	scnprintf(local, sizeof(local), "%x %x %x %llx", c->qp->qp_num, c->psn,
		  c->mr->rkey, c->mr->iova);
	pr_info("# rdma_rc_ulp: %s on %s port %u: %s\n", role,
		dev_name(&dev->dev), c->port, local);
	mutex_lock(&ulp_lock);
	ulp = c;
	if (peer_line[0])
		ulp_take_peer(c, peer_line);
	mutex_unlock(&ulp_lock);
	return 0;
}

static void ulp_remove_one(struct ib_device *dev, void *client_data)
{
	struct ulp_ctx *c;

	mutex_lock(&ulp_lock);
	c = ulp;
	if (!c || c->dev != dev) {
		mutex_unlock(&ulp_lock);
		return;
	}
	ulp = NULL;
	local[0] = 0;
	mutex_unlock(&ulp_lock);
	cancel_work_sync(&c->connect_work);
	pr_info("# rdma_rc_ulp: %s: echoed %lld messages, %d errors, %d registration errors\n",
		dev_name(&dev->dev), (long long)atomic64_read(&c->echoed),
		atomic_read(&c->errors), atomic_read(&c->reg_errors));
	ulp_teardown(c);
}

static struct ib_client ulp_client = {
	.name = "rdma_rc_ulp",
	.add = ulp_add_one,
	.remove = ulp_remove_one,
};

static int __init ulp_init(void)
{
	if (strcmp(role, "active") && strcmp(role, "passive"))
		return -EINVAL;
	if (ib_mtu_int_to_enum(mtu) == IB_MTU_256 && mtu != 256)
		return -EINVAL;
	if ((strcmp(gid, "ipv4") && strcmp(gid, "ipv6")) || !iters)
		return -EINVAL;
	return ib_register_client(&ulp_client);
}

static void __exit ulp_exit(void)
{
	ib_unregister_client(&ulp_client);
}

module_init(ulp_init);
module_exit(ulp_exit);

MODULE_DESCRIPTION("RC queue pair ULP for RDMA interoperability tests");
MODULE_LICENSE("GPL");
