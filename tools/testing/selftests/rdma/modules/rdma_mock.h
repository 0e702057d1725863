/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdma_mock: a minimal RoCE provider for the core's KTAP test modules.
 *
 * It registers ib_devices through the public provider API only, on top of a
 * netdev the test hands it, and records what the core asks of it (GID table
 * updates, object creation) so that tests can check the core's side of the
 * contract.  The verbs are simple but real: completions go through a
 * software ring per CQ, QP state changes are checked with
 * ib_modify_qp_is_ok(), and so on.
 *
 * It also offers the tests a throw-away Ethernet netdev and a way to add
 * and remove addresses and neighbours on it from inside the kernel.
 */
#ifndef RDMA_MOCK_H
#define RDMA_MOCK_H

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#define RDMA_MOCK_MAX_PORTS	2
#define RDMA_MOCK_GID_TBL_LEN	16
/* RoCE v1 and v2 ports without management datagrams (no GSI QP) */
#define RDMA_MOCK_CORE_CAPS	((RDMA_CORE_PORT_IBA_ROCE | \
				  RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP) & \
				 ~RDMA_CORE_CAP_IB_MAD)
#define RDMA_MOCK_MAX_WR	256
#define RDMA_MOCK_MAX_CQE	1024
#define RDMA_MOCK_MAX_SGE	4
#define RDMA_MOCK_MAX_MCAST	4
#define RDMA_MOCK_DMA_LKEY	0x00d3a000

struct rdma_mock_dev;

/* Variants of the provider, chosen when the device is created. */
struct rdma_mock_opts {
	u32 num_ports;		/* 1 (default when 0) or 2; port 2 has no netdev */
	bool no_create_ah;	/* leave ops.create_ah NULL */
	bool no_local_dma_lkey;	/* no IBK_LOCAL_DMA_LKEY: the core uses get_dma_mr */
	bool user_ah;		/* also offer ops.create_user_ah */
	bool cq_ops;		/* offer ops.modify_cq and ops.resize_cq */
	/*
	 * Offer ops.dealloc_driver: the core then frees the device when it
	 * is unregistered, and @dealloc_count (if set) counts the calls.
	 */
	bool dealloc_driver;
	atomic_t *dealloc_count;
	/* With dealloc_driver: called as the core frees the device. */
	void (*on_dealloc)(struct rdma_mock_dev *md);
	/* IBK_ALLOW_USER_UNREG: "rdma link delete" may remove the device. */
	bool user_unreg;
	/*
	 * Per-port hardware counters (alloc_hw_port_stats, get_hw_stats,
	 * modify_hw_stat): the device's own verb calls, see
	 * enum rdma_mock_counter.  The optional ones start switched off.
	 */
	bool hw_stats;
	enum rdma_driver_id driver_id;	/* 0 is RDMA_DRIVER_UNKNOWN */
};

/*
 * The counters of opts.hw_stats, in the order "rdma statistic" lists them.
 * Every port shows the device-wide count of the calls, except QP_MODIFY:
 * the modify_qp() calls on the port's QPs, optional (IB_STAT_FLAG_OPTIONAL)
 * and only counted while switched on.
 */
enum rdma_mock_counter {
	RDMA_MOCK_CNT_PD_ALLOC,
	RDMA_MOCK_CNT_CQ_CREATE,
	RDMA_MOCK_CNT_QP_CREATE,
	RDMA_MOCK_CNT_MR_ALLOC,
	RDMA_MOCK_CNT_POST_SEND_WR,
	RDMA_MOCK_CNT_POST_RECV_WR,
	RDMA_MOCK_CNT_QP_MODIFY,
	RDMA_MOCK_CNT_MAX
};

/* What the core told the provider about one GID table slot. */
struct rdma_mock_gid_slot {
	bool valid;
	union ib_gid gid;
	enum ib_gid_type gid_type;
	unsigned int adds;
	unsigned int dels;
};

/*
 * One mock device.  @lock protects @gids and the last_* records; the
 * counters are atomics so tests can read them without locking.
 */
struct rdma_mock_dev {
	struct ib_device ibdev;		/* must stay first */
	struct net_device *ndev;
	struct rdma_mock_opts opts;
	bool registered;

	spinlock_t lock;		/* @gids and the last_* records */
	struct rdma_mock_gid_slot gids[RDMA_MOCK_MAX_PORTS][RDMA_MOCK_GID_TBL_LEN];
	atomic_t add_gid_calls;
	atomic_t del_gid_calls;
	atomic_t gid_errors;		/* bad index, unknown slot, wrong context */

	/* Failure knobs: a negative errno makes the next calls fail. */
	int ah_create_err;
	int ah_modify_err;

	/* Object counters. */
	atomic_t pd_allocs, pd_deallocs;
	atomic_t ah_create_calls, ah_creates, ah_destroys;
	atomic_t cq_creates, cq_destroys;
	atomic_t qp_creates, qp_destroys;
	atomic_t srq_creates, srq_destroys;
	atomic_t mr_allocs, mr_deregs;
	atomic_t dma_mr_allocs, dma_mr_deregs;
	atomic_t mcast_attaches, mcast_detaches;
	atomic_t next_qpn;
	atomic_t next_key;
	/* Work requests accepted by post_send() / post_recv(). */
	atomic_t send_wrs, recv_wrs;
	/*
	 * modify_qp() calls on QPs of each port, counted only while the
	 * port's optional counter is switched on (@count_qp_modifies, set
	 * by modify_hw_stat()).
	 */
	atomic_t qp_modifies[RDMA_MOCK_MAX_PORTS];
	bool count_qp_modifies[RDMA_MOCK_MAX_PORTS];
	atomic_t hw_stat_modifies;	/* modify_hw_stat() calls */

	/* What the last create_ah() call saw. */
	u32 last_ah_flags;
	bool last_ah_irqs_disabled;
	bool last_ah_in_atomic;
	const struct ib_gid_attr *last_ah_sgid_attr;
	/* The sgid_attr the last modify_qp() with IB_QP_AV carried. */
	const struct ib_gid_attr *last_qp_av_sgid_attr;
	u32 last_dma_mr_access;
	u32 last_dma_mr_lkey;
	/* What the last modify_cq() call was given (opts.cq_ops). */
	u16 last_cq_count;
	u16 last_cq_period;
};

struct rdma_mock_pd {
	struct ib_pd ibpd;		/* must stay first */
};

struct rdma_mock_ah {
	struct ib_ah ibah;		/* must stay first */
	struct rdma_ah_attr attr;	/* sgid_attr: borrowed, not held */
	u32 create_flags;
};

struct rdma_mock_cq {
	struct ib_cq ibcq;		/* must stay first */
	spinlock_t lock;		/* the ring and @armed */
	struct ib_wc *ring;
	unsigned int size, head, count;
	bool armed;
	unsigned int overflows;
};

struct rdma_mock_srq {
	struct ib_srq ibsrq;		/* must stay first */
	spinlock_t lock;		/* @attr and @posted */
	struct ib_srq_attr attr;
	unsigned int posted;
};

struct rdma_mock_qp {
	struct ib_qp ibqp;		/* must stay first */
	spinlock_t lock;		/* everything below */
	enum ib_qp_state state;
	enum ib_sig_type sq_sig_type;
	struct ib_qp_cap cap;
	struct ib_qp_attr attr;		/* attributes last set */
	u64 rq[RDMA_MOCK_MAX_WR];	/* posted receive wr_id / wr_cqe */
	unsigned int rq_head, rq_count;
	union ib_gid mcast[RDMA_MOCK_MAX_MCAST];
	unsigned int n_mcast;
};

struct rdma_mock_mr {
	struct ib_mr ibmr;
	u64 *pages;
	u32 max_pages;
	u32 npages;
};

static inline struct rdma_mock_dev *to_mock_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rdma_mock_dev, ibdev);
}

static inline struct rdma_mock_ah *to_mock_ah(struct ib_ah *ah)
{
	return container_of(ah, struct rdma_mock_ah, ibah);
}

static inline struct rdma_mock_qp *to_mock_qp(struct ib_qp *qp)
{
	return container_of(qp, struct rdma_mock_qp, ibqp);
}

static inline struct rdma_mock_cq *to_mock_cq(struct ib_cq *cq)
{
	return container_of(cq, struct rdma_mock_cq, ibcq);
}

static inline struct rdma_mock_srq *to_mock_srq(struct ib_srq *srq)
{
	return container_of(srq, struct rdma_mock_srq, ibsrq);
}

static inline struct rdma_mock_mr *to_mock_mr(struct ib_mr *mr)
{
	return container_of(mr, struct rdma_mock_mr, ibmr);
}

/*
 * Poll @cond every 10 ms for up to @ms milliseconds (the core updates GID
 * tables and delivers events from work items).  Evaluates to the last
 * value of @cond.
 */
#define rdma_mock_wait_for(cond, ms)					\
	({								\
		unsigned long __end = jiffies + msecs_to_jiffies(ms);	\
		bool __ok;						\
									\
		for (;;) {						\
			__ok = (cond);					\
			if (__ok || time_after(jiffies, __end))		\
				break;					\
			usleep_range(10000, 20000);		\
		}							\
		__ok;							\
	})

/* Devices: allocate (not registered), register, unregister, free. */
struct rdma_mock_dev *rdma_mock_alloc(struct net_device *ndev,
				      const struct rdma_mock_opts *opts);
int rdma_mock_register(struct rdma_mock_dev *md, const char *name);
void rdma_mock_unregister(struct rdma_mock_dev *md);
void rdma_mock_free(struct rdma_mock_dev *md);
/* alloc + register under "mock%d"; destroy = unregister (if needed) + free */
struct rdma_mock_dev *rdma_mock_create(struct net_device *ndev,
				       const struct rdma_mock_opts *opts);
void rdma_mock_destroy(struct rdma_mock_dev *md);

/* The GID slot the core last reported for (@port, @index); false if none. */
bool rdma_mock_gid_slot(struct rdma_mock_dev *md, u32 port, unsigned int index,
			struct rdma_mock_gid_slot *out);

/* GID table look-ups through the core's cache API (port 1). */
#define RDMA_MOCK_GID_WAIT_MS	3000
bool rdma_mock_gid_index_valid(struct ib_device *dev, u32 port, int index);
const struct ib_gid_attr *rdma_mock_gid_find(struct ib_device *dev,
					     const union ib_gid *gid,
					     enum ib_gid_type type);
bool rdma_mock_gid_present(struct ib_device *dev, const union ib_gid *gid,
			   enum ib_gid_type type);
const struct ib_gid_attr *rdma_mock_gid_wait(struct ib_device *dev,
					     const union ib_gid *gid,
					     enum ib_gid_type type);
unsigned int rdma_mock_gid_dels(struct rdma_mock_dev *md, unsigned int index);

static inline bool rdma_mock_gid_eq(const union ib_gid *a,
				    const union ib_gid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Complete the oldest receive posted to @qp on its receive CQ with
 * @byte_len bytes, as if a packet had arrived.  -ENOENT if none is posted.
 */
int rdma_mock_deliver_recv(struct ib_qp *qp, u32 byte_len);

/* A throw-away Ethernet netdev, registered and up; @mac may be NULL. */
struct net_device *rdma_mock_netdev_create(const char *name, const u8 *mac);
void rdma_mock_netdev_destroy(struct net_device *ndev);

/*
 * Address and neighbour changes through rtnetlink, as "ip addr" and
 * "ip neigh" would do them (IPv6 addresses are added without DAD).
 */
int rdma_mock_addr4(struct net_device *ndev, bool add, __be32 addr, u8 plen);
int rdma_mock_addr6(struct net_device *ndev, bool add,
		    const struct in6_addr *addr, u8 plen);
int rdma_mock_neigh4(struct net_device *ndev, bool add, __be32 addr,
		     const u8 *lladdr);
int rdma_mock_neigh6(struct net_device *ndev, bool add,
		     const struct in6_addr *addr, const u8 *lladdr);

#endif /* RDMA_MOCK_H */
