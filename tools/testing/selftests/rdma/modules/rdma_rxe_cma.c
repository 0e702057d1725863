// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA CM (rdma_cm) on the rxe device under test, both ends on this
 * host and addressed by the module's own IP addresses: address and route
 * resolution with what they report, RC connections over IPv4 and IPv6
 * with the parameters each event carries and SENDs over the QPs
 * rdma_create_qp() made, disconnection and time wait, refusals, UD
 * through SIDR with the address vector of the ESTABLISHED event, RoCE
 * multicast joins, the calls' rules (binding, port sharing, states), and
 * paths and attributes in user space's layouts (ib_marshall.h).
 * What goes on the wire against stock is checked by tests/ulp_rping.sh.
 */
#include <linux/inet.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_marshall.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "rdma_ah_kt.h"
#include "rdma_rxe_loop.h"

#define CA_PORT		20886
#define CA_EVENTS	16
#define CA_REQ_DATA	"ca request"
#define CA_REP_DATA	"ca reply"
#define CA_REJ_DATA	"ca refusal"

/* What a listener does with a request. */
enum ca_mode { CA_ACCEPT, CA_REJECT, CA_FAIL };

/* One ID and what it was told. */
struct ca_end {
	struct rdma_cm_id	*id;
	spinlock_t		lock;		/* the event log */
	wait_queue_head_t	wq;
	int			ev[CA_EVENTS];
	int			status[CA_EVENTS];
	int			nev;
	int			seen;		/* events checked so far */
	/* of the latest event carrying them */
	u8			pdata[256];
	u8			pdata_len;
	struct rdma_conn_param	conn;
	u32			ud_qpn;
	u32			ud_qkey;
	struct ib_ah		*ah;		/* made in the UD handler */
	u8			mc_dmac[ETH_ALEN];
	const void		*mc_ctx;
	/* a listener's */
	enum ca_mode		mode;
	struct ca_end		*child;		/* takes the next request */
	struct ca_end		*taken;		/* took the last one */
	/* the QP made on the ID */
	struct lt_end		qp;
	bool			has_qp;
};

static struct ca_end *ca_new(void)
{
	struct ca_end *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (s) {
		spin_lock_init(&s->lock);
		init_waitqueue_head(&s->wq);
	}
	return s;
}

/* A QP on @s->id, as rdma_create_qp() makes it. */
static int ca_qp(struct ca_end *s)
{
	struct ib_qp_init_attr init;
	int ret;

	ret = lt_end_prepare(&s->qp, s->id->qp_type, NULL, LT_DEPTH, &init);
	if (ret)
		return ret;
	ret = rdma_create_qp(s->id, lt_pd, &init);
	if (ret) {
		lt_end_destroy(&s->qp);
		return ret;
	}
	s->qp.qp = s->id->qp;
	s->has_qp = true;
	return 0;
}

/* Destroy @s: its AH, QP and ID, and a listener's children. */
static void ca_free(struct ca_end *s)
{
	if (!s)
		return;
	ca_free(s->taken);
	kfree(s->child);
	if (s->ah)
		rdma_destroy_ah(s->ah, 0);
	if (s->has_qp) {
		rdma_destroy_qp(s->id);
		s->qp.qp = NULL;
		lt_end_destroy(&s->qp);
	}
	if (s->id)
		rdma_destroy_id(s->id);
	kfree(s);
}

/* A listener's answer to a request, made in the handler. */
static int ca_answer(struct ca_end *l, struct ca_end *c)
{
	struct rdma_conn_param p = {
		.private_data = CA_REP_DATA,
		.private_data_len = sizeof(CA_REP_DATA),
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};

	switch (l->mode) {
	case CA_FAIL:
		c->id = NULL;	/* the CM destroys it */
		return -EINVAL;
	case CA_REJECT:
		return rdma_reject(c->id, CA_REJ_DATA, sizeof(CA_REJ_DATA),
				   IB_CM_REJ_CONSUMER_DEFINED);
	case CA_ACCEPT:
		break;
	}
	if (ca_qp(c))
		return 0;	/* the case sees no ESTABLISHED */
	if (c->id->qp_type == IB_QPT_RC &&
	    lt_post_recv(c->qp.qp, NULL, 1, c->qp.rx_dma, LT_BUF))
		return 0;
	return rdma_accept(c->id, &p);
}

static void ca_log(struct ca_end *s, const struct rdma_cm_event *e)
{
	const void *data = NULL;
	u8 len = 0;

	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    e->event == RDMA_CM_EVENT_ESTABLISHED ||
	    e->event == RDMA_CM_EVENT_REJECTED ||
	    e->event == RDMA_CM_EVENT_UNREACHABLE) {
		if (s->id && s->id->qp_type == IB_QPT_UD) {
			data = e->param.ud.private_data;
			len = e->param.ud.private_data_len;
		} else {
			data = e->param.conn.private_data;
			len = e->param.conn.private_data_len;
		}
	}
	/* A passive ESTABLISHED carries nothing: keep the request's. */
	if (data && s->id->qp_type != IB_QPT_UD)
		s->conn = e->param.conn;
	spin_lock(&s->lock);
	if (data) {
		memcpy(s->pdata, data, len);
		s->pdata_len = len;
	}
	if (s->nev < CA_EVENTS) {
		s->ev[s->nev] = e->event;
		s->status[s->nev] = e->status;
		s->nev++;
	}
	spin_unlock(&s->lock);
	wake_up(&s->wq);
}

static int ca_handler(struct rdma_cm_id *id, struct rdma_cm_event *e)
{
	struct ca_end *s = id->context;
	int ret = 0;

	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct ca_end *c = s->child;

		if (!c)
			return -ENOMEM;
		s->child = NULL;
		c->id = id;
		id->context = c;
		ca_log(c, e);
		ret = ca_answer(s, c);
		if (c->id)
			s->taken = c;
		else
			ca_free(c);	/* refused by failing: no ID left */
		return ret;
	}
	if (e->event == RDMA_CM_EVENT_ESTABLISHED && id->qp_type == IB_QPT_UD &&
	    !s->ah) {
		s->ud_qpn = e->param.ud.qp_num;
		s->ud_qkey = e->param.ud.qkey;
		s->ah = rdma_create_ah(lt_pd, &e->param.ud.ah_attr, 0);
		if (IS_ERR(s->ah))
			s->ah = NULL;
	}
	if (e->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		memcpy(s->mc_dmac, e->param.ud.ah_attr.roce.dmac, ETH_ALEN);
		s->ud_qpn = e->param.ud.qp_num;
		s->ud_qkey = e->param.ud.qkey;
		s->mc_ctx = e->param.ud.private_data;
	}
	ca_log(s, e);
	return 0;
}

/* Wait for @s's next event; it must be @want with @status. */
static bool ca_expect(struct rdma_ktap_ctx *ctx, struct ca_end *s,
		      enum rdma_cm_event_type want, int status)
{
	int i = s->seen;

	if (!wait_event_timeout(s->wq, READ_ONCE(s->nev) > i,
				msecs_to_jiffies(LT_WAIT_MS))) {
		RDMA_KT_EXPECT(ctx, false, "no event; wanted %s",
			       rdma_event_msg(want));
		return false;
	}
	s->seen++;
	if (!RDMA_KT_EXPECT(ctx, s->ev[i] == want, "event %s, wanted %s",
			    rdma_event_msg(s->ev[i]), rdma_event_msg(want)))
		return false;
	return RDMA_KT_EQ(ctx, s->status[i], status);
}

/* And no further event within LT_QUIET_MS. */
static bool ca_quiet(struct rdma_ktap_ctx *ctx, struct ca_end *s)
{
	msleep(LT_QUIET_MS);
	return RDMA_KT_EXPECT(ctx, READ_ONCE(s->nev) == s->seen,
			      "unexpected event %s",
			      rdma_event_msg(s->ev[s->seen]));
}

static void ca_sin(struct sockaddr_storage *ss, bool v6, u16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = lt_addr6;
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = LT_ADDR4;
		s4->sin_port = htons(port);
	}
}

static void ca_any(struct sockaddr_storage *ss, sa_family_t fam, u16 port)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = fam;
	if (fam == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static struct sockaddr *ca_sa(struct sockaddr_storage *ss)
{
	return (struct sockaddr *)ss;
}

static u16 ca_port_of(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)ss)->sin6_port);
}

static struct rdma_cm_id *ca_id(struct ca_end *s, enum rdma_ucm_port_space ps,
				enum ib_qp_type type)
{
	s->id = rdma_create_id(&init_net, ca_handler, s, ps, type);
	if (IS_ERR(s->id)) {
		s->id = NULL;
		return NULL;
	}
	return s->id;
}

/* A listener of @ps on @addr with a child end ready for one request. */
static struct ca_end *ca_listener(struct rdma_ktap_ctx *ctx,
				  enum rdma_ucm_port_space ps,
				  enum ib_qp_type type,
				  struct sockaddr_storage *addr, enum ca_mode mode)
{
	struct ca_end *l = ca_new();

	if (!RDMA_KT_EXPECT(ctx, l, "no memory"))
		return NULL;
	l->mode = mode;
	l->child = ca_new();
	if (!RDMA_KT_EXPECT(ctx, l->child && ca_id(l, ps, type), "listener") ||
	    !RDMA_KT_EQ(ctx, rdma_bind_addr(l->id, (struct sockaddr *)addr), 0) ||
	    !RDMA_KT_EQ(ctx, rdma_listen(l->id, 4), 0)) {
		ca_free(l);
		return NULL;
	}
	return l;
}

/* Resolve @c to @dst: address, then route. */
static bool ca_resolve(struct rdma_ktap_ctx *ctx, struct ca_end *c,
		       struct sockaddr_storage *dst)
{
	return RDMA_KT_EQ(ctx, rdma_resolve_addr(c->id, NULL,
						 (struct sockaddr *)dst,
						 LT_WAIT_MS), 0) &&
	       ca_expect(ctx, c, RDMA_CM_EVENT_ADDR_RESOLVED, 0) &&
	       RDMA_KT_EXPECT(ctx, c->id->device == lt_dev,
			      "resolved to another device") &&
	       RDMA_KT_EQ(ctx, rdma_resolve_route(c->id, LT_WAIT_MS), 0) &&
	       ca_expect(ctx, c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
}

/* The path rdma_resolve_route() built, as CM.md describes it. */
static void ca_check_path(struct rdma_ktap_ctx *ctx, struct ca_end *c,
			  bool v6, u16 dport)
{
	struct sa_path_rec *p = c->id->route.path_rec;
	u16 sport = ca_port_of(&c->id->route.addr.src_addr);
	union ib_gid want;

	if (!RDMA_KT_EXPECT(ctx, p && c->id->route.num_pri_alt_paths == 1,
			    "no path"))
		return;
	if (v6)
		rdma_kt_gid_v6(&want, &lt_addr6);
	else
		rdma_kt_gid_v4(&want, LT_ADDR4);
	RDMA_KT_EXPECT(ctx, !memcmp(&p->sgid, &want, 16) &&
		       !memcmp(&p->dgid, &want, 16), "path GIDs %pI6/%pI6",
		       p->sgid.raw, p->dgid.raw);
	RDMA_KT_EQ(ctx, p->rec_type, SA_PATH_REC_TYPE_ROCE_V2);
	RDMA_KT_EQ(ctx, be64_to_cpu(p->service_id),
		   RDMA_IB_IP_PS_TCP | dport);
	RDMA_KT_EQ(ctx, be64_to_cpu(p->service_id),
		   be64_to_cpu(rdma_get_service_id(c->id, (struct sockaddr *)
						   &c->id->route.addr.dst_addr)));
	RDMA_KT_EQ(ctx, be32_to_cpu(p->flow_label),
		   (sport * 31 + dport) & 0xfffff);
	RDMA_KT_EQ(ctx, be16_to_cpu(p->pkey), 0xffff);
	RDMA_KT_EQ(ctx, p->mtu, lt_mtu_enum);
	RDMA_KT_EQ(ctx, p->packet_life_time, 16);
	RDMA_KT_EXPECT(ctx, p->roce.route_resolved && p->hop_limit > 1,
		       "route_resolved %d hop limit %u", p->roce.route_resolved,
		       p->hop_limit);
	RDMA_KT_EXPECT(ctx, sport >= 1024, "source port %u", sport);
}

static const struct rdma_conn_param ca_req_param = {
	.private_data = CA_REQ_DATA,
	.private_data_len = sizeof(CA_REQ_DATA),
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
	.rnr_retry_count = 7,
};

/* A's first 56 bytes of request data: ours, then zeros. */
static bool ca_req_data_ok(struct ca_end *c)
{
	u8 i;

	if (c->pdata_len != IB_CM_REQ_PRIVATE_DATA_SIZE - 36 ||
	    memcmp(c->pdata, CA_REQ_DATA, sizeof(CA_REQ_DATA)))
		return false;
	for (i = sizeof(CA_REQ_DATA); i < c->pdata_len; i++)
		if (c->pdata[i])
			return false;
	return true;
}

/* A SEND of @len bytes into the receive @rwr_id posted on @to. */
static bool ca_send(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		    struct lt_end *to, u32 len, u32 seed, u64 rwr_id,
		    const char *what)
{
	struct lt_wr w = { .op = IB_WR_SEND, .wr_id = 10 + rwr_id,
			   .signaled = true, .laddr = from->tx_dma,
			   .len = len };
	struct ib_wc wc;

	lt_fill(from->tx, len, seed);
	if (!RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, from->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, to->rcq, what, rwr_id, IB_WC_SUCCESS,
			  IB_WC_RECV, &wc) ||
	    !lt_expect_data(ctx, to->rx, len, seed, what))
		return false;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts += lt_npkts(len);
	return true;
}

/*
 * Connect @c to the listener @l at @dst over RC, check what both sides
 * were told, and exchange a SEND each way.  Returns the passive end.
 */
static struct ca_end *ca_connect_rc(struct rdma_ktap_ctx *ctx,
				    struct ca_end *l, struct ca_end *c,
				    struct sockaddr_storage *dst, bool v6)
{
	struct rdma_conn_param p = ca_req_param;
	struct ca_end *s = l->child;

	if (!ca_resolve(ctx, c, dst))
		return NULL;
	ca_check_path(ctx, c, v6, ca_port_of(dst));
	if (!RDMA_KT_EQ(ctx, ca_qp(c), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(c->qp.qp, NULL, 2, c->qp.rx_dma,
					  LT_BUF), 0) ||
	    !RDMA_KT_EQ(ctx, rdma_connect(c->id, &p), 0) ||
	    !ca_expect(ctx, s, RDMA_CM_EVENT_CONNECT_REQUEST, 0))
		return NULL;
	RDMA_KT_EXPECT(ctx, ca_req_data_ok(s), "request data (%u bytes)",
		       s->pdata_len);
	RDMA_KT_EQ(ctx, s->conn.qp_num, lt_qpn(&c->qp));
	RDMA_KT_EQ(ctx, s->conn.responder_resources, 1);
	RDMA_KT_EQ(ctx, s->conn.initiator_depth, 1);
	RDMA_KT_EQ(ctx, s->conn.rnr_retry_count, 7);
	RDMA_KT_EXPECT(ctx, !memcmp(&s->id->route.addr.src_addr,
				    &l->id->route.addr.src_addr, 2) &&
		       ca_port_of(&s->id->route.addr.src_addr) ==
		       ca_port_of(dst) &&
		       ca_port_of(&s->id->route.addr.dst_addr) ==
		       ca_port_of(&c->id->route.addr.src_addr),
		       "passive addresses %pISpc -> %pISpc",
		       &s->id->route.addr.src_addr,
		       &s->id->route.addr.dst_addr);
	if (!ca_expect(ctx, c, RDMA_CM_EVENT_ESTABLISHED, 0) ||
	    !ca_expect(ctx, s, RDMA_CM_EVENT_ESTABLISHED, 0))
		return NULL;
	RDMA_KT_EQ(ctx, c->pdata_len, IB_CM_REP_PRIVATE_DATA_SIZE);
	RDMA_KT_EXPECT(ctx, !memcmp(c->pdata, CA_REP_DATA, sizeof(CA_REP_DATA)),
		       "reply data");
	RDMA_KT_EQ(ctx, c->conn.qp_num, lt_qpn(&s->qp));
	/* Both receives were posted before the connection: SEND each way. */
	memset(s->qp.rx, 0, LT_BUF);
	if (!ca_send(ctx, &c->qp, &s->qp, 100, 7, 1, "a->p") ||
	    !ca_send(ctx, &s->qp, &c->qp, 200, 8, 2, "p->a"))
		return NULL;
	return s;
}

/*
 * RC over IPv4 through a wildcard listener: the active side disconnects,
 * the passive one answers with its own rdma_disconnect() (the DREP), and
 * both pass through time wait.
 */
void cma_rc_ipv4(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage any, dst;
	struct ca_end *l, *c, *s = NULL;

	ca_any(&any, AF_INET, CA_PORT);
	ca_sin(&dst, false, CA_PORT);
	l = ca_listener(ctx, RDMA_PS_TCP, IB_QPT_RC, &any, CA_ACCEPT);
	c = ca_new();
	if (!l || !RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC),
				  "client ID"))
		goto out;
	s = ca_connect_rc(ctx, l, c, &dst, false);
	if (!s)
		goto out;
	RDMA_KT_EQ(ctx, rdma_disconnect(c->id), 0);
	if (ca_expect(ctx, s, RDMA_CM_EVENT_DISCONNECTED, 0)) {
		RDMA_KT_EQ(ctx, rdma_disconnect(s->id), 0);
		ca_expect(ctx, c, RDMA_CM_EVENT_DISCONNECTED, 0);
		ca_expect(ctx, c, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
		ca_expect(ctx, s, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
	}
	RDMA_KT_EQ(ctx, rdma_disconnect(c->id), -EINVAL);
	ca_quiet(ctx, c);
	ca_quiet(ctx, l);
out:
	ca_free(c);
	ca_free(l);
}

/*
 * RC over IPv6 through a listener bound to the address; the active side
 * is destroyed while connected, and the passive side sees DISCONNECTED.
 */
void cma_rc_ipv6(struct rdma_ktap_ctx *ctx)
{
	struct ca_end *l, *c, *s = NULL;
	struct sockaddr_storage dst;

	ca_sin(&dst, true, CA_PORT + 6);
	l = ca_listener(ctx, RDMA_PS_TCP, IB_QPT_RC, &dst, CA_ACCEPT);
	c = ca_new();
	if (!l || !RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC),
				  "client ID"))
		goto out;
	RDMA_KT_EXPECT(ctx, l->id->device == lt_dev,
		       "a listener bound to an address is on its device");
	s = ca_connect_rc(ctx, l, c, &dst, true);
	if (!s)
		goto out;
	ca_free(c);
	c = NULL;
	ca_expect(ctx, s, RDMA_CM_EVENT_DISCONNECTED, 0);
	RDMA_KT_EQ(ctx, rdma_disconnect(s->id), 0);
	ca_expect(ctx, s, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
out:
	ca_free(c);
	ca_free(l);
}

/* Connect @c (an RC ID) to @port; the answer must be REJECTED @reason. */
static void ca_refused(struct rdma_ktap_ctx *ctx, struct ca_end *c, u16 port,
		       int reason)
{
	struct rdma_conn_param p = ca_req_param;
	struct sockaddr_storage dst;

	ca_sin(&dst, false, port);
	if (!ca_resolve(ctx, c, &dst) || !RDMA_KT_EQ(ctx, ca_qp(c), 0) ||
	    !RDMA_KT_EQ(ctx, rdma_connect(c->id, &p), 0))
		return;
	ca_expect(ctx, c, RDMA_CM_EVENT_REJECTED, reason);
}

/* No listener, a listener that rejects, one whose handler fails. */
void cma_refusals(struct rdma_ktap_ctx *ctx)
{
	struct rdma_conn_param big = ca_req_param;
	struct sockaddr_storage any, dst;
	struct rdma_cm_event ev = {};
	struct ca_end *l, *c;
	const u8 *data;
	u8 len;

	c = ca_new();
	if (RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC), "ID")) {
		ca_refused(ctx, c, CA_PORT + 1, IB_CM_REJ_INVALID_SERVICE_ID);
		RDMA_KT_EXPECT(ctx, !strcmp(rdma_reject_msg(c->id, 8),
					    ibcm_reject_msg(8)), "reject msg");
	}
	ca_free(c);

	ca_any(&any, AF_INET, CA_PORT + 2);
	l = ca_listener(ctx, RDMA_PS_TCP, IB_QPT_RC, &any, CA_REJECT);
	c = ca_new();
	if (l && RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC),
				"ID")) {
		ca_refused(ctx, c, CA_PORT + 2, IB_CM_REJ_CONSUMER_DEFINED);
		ev.event = RDMA_CM_EVENT_REJECTED;
		ev.status = IB_CM_REJ_CONSUMER_DEFINED;
		ev.param.conn.private_data = c->pdata;
		ev.param.conn.private_data_len = c->pdata_len;
		data = rdma_consumer_reject_data(c->id, &ev, &len);
		RDMA_KT_EXPECT(ctx, data && len == IB_CM_REJ_PRIVATE_DATA_SIZE &&
			       !memcmp(data, CA_REJ_DATA, sizeof(CA_REJ_DATA)),
			       "consumer reject data");
		ev.status = IB_CM_REJ_INVALID_SERVICE_ID;
		RDMA_KT_EXPECT(ctx, !rdma_consumer_reject_data(c->id, &ev, &len) &&
			       !len, "reject data for another reason");
	}
	ca_free(c);
	ca_free(l);

	ca_any(&any, AF_INET, CA_PORT + 3);
	l = ca_listener(ctx, RDMA_PS_TCP, IB_QPT_RC, &any, CA_FAIL);
	c = ca_new();
	if (l && RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC),
				"ID"))
		ca_refused(ctx, c, CA_PORT + 3, IB_CM_REJ_CONSUMER_DEFINED);
	ca_free(c);
	ca_free(l);

	/* 57 bytes of private data do not fit a REQ after the header. */
	c = ca_new();
	ca_sin(&dst, false, CA_PORT + 4);
	big.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - 36 + 1;
	big.private_data = kzalloc(big.private_data_len, GFP_KERNEL);
	if (RDMA_KT_EXPECT(ctx, big.private_data && c &&
			   ca_id(c, RDMA_PS_TCP, IB_QPT_RC), "ID") &&
	    ca_resolve(ctx, c, &dst) && RDMA_KT_EQ(ctx, ca_qp(c), 0)) {
		RDMA_KT_EQ(ctx, rdma_connect(c->id, &big), -EINVAL);
		big.private_data_len--;
		RDMA_KT_EQ(ctx, rdma_connect(c->id, &big), 0);
		ca_expect(ctx, c, RDMA_CM_EVENT_REJECTED,
			  IB_CM_REJ_INVALID_SERVICE_ID);
	}
	kfree(big.private_data);
	ca_free(c);
}

/* Binding, port sharing, states and the helpers. */
void cma_api_rules(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage a, b;
	struct ca_end *x, *y, *z;
	struct sockaddr_in6 ll = {
		.sin6_family = AF_INET6,
		.sin6_addr = { .s6_addr = { 0xfe, 0x80, [15] = 1 } },
	};
	struct sockaddr un = { .sa_family = AF_UNIX };
	union ib_gid sg, dg;
	int ret;

	RDMA_KT_EQ(ctx, PTR_ERR(rdma_create_id(&init_net, ca_handler, NULL,
					       0x777, IB_QPT_RC)), -EINVAL);
	RDMA_KT_EQ(ctx, PTR_ERR(rdma_create_id(&init_net, ca_handler, NULL,
					       RDMA_PS_TCP, IB_QPT_UC)),
		   -EOPNOTSUPP);
	x = ca_new();
	y = ca_new();
	z = ca_new();
	if (!RDMA_KT_EXPECT(ctx, x && y && z && ca_id(x, RDMA_PS_TCP, IB_QPT_RC) &&
			    ca_id(y, RDMA_PS_TCP, IB_QPT_RC) &&
			    ca_id(z, RDMA_PS_UDP, IB_QPT_UD), "IDs"))
		goto out;

	rdma_read_gids(x->id, &sg, &dg);
	RDMA_KT_EXPECT(ctx, rdma_is_zero_gid(&sg) && rdma_is_zero_gid(&dg),
		       "GIDs of an unbound ID");
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, &un), -EAFNOSUPPORT);
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, (struct sockaddr *)&ll), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_resolve_route(x->id, 100), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_connect(x->id, (struct rdma_conn_param *)
				     &ca_req_param), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_disconnect(x->id), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_reject(x->id, NULL, 0, 28), -EINVAL);
	rdma_lock_handler(x->id);
	RDMA_KT_EQ(ctx, rdma_accept(x->id, NULL), -EINVAL);
	rdma_unlock_handler(x->id);
	RDMA_KT_EQ(ctx, rdma_set_min_rnr_timer(x->id, 32), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_set_min_rnr_timer(x->id, 12), 0);
	RDMA_KT_EQ(ctx, rdma_set_ack_timeout(z->id, 14), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_set_ack_timeout(x->id, 14), 0);

	/* a specific address, then the same again, then its wildcard */
	ca_sin(&a, false, CA_PORT + 10);
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, (struct sockaddr *)&a), 0);
	RDMA_KT_EXPECT(ctx, x->id->device == lt_dev && x->id->port_num == 1,
		       "bound to the address's device");
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, (struct sockaddr *)&a), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_bind_addr(y->id, (struct sockaddr *)&a),
		   -EADDRINUSE);
	ca_any(&b, AF_INET, CA_PORT + 10);
	RDMA_KT_EQ(ctx, rdma_bind_addr(y->id, (struct sockaddr *)&b),
		   -EADDRNOTAVAIL);
	/* the same port in another port space is free */
	RDMA_KT_EQ(ctx, rdma_bind_addr(z->id, (struct sockaddr *)&a), 0);
	ca_free(x);
	ca_free(y);
	x = ca_new();
	y = ca_new();
	if (!RDMA_KT_EXPECT(ctx, x && y && ca_id(x, RDMA_PS_TCP, IB_QPT_RC) &&
			    ca_id(y, RDMA_PS_TCP, IB_QPT_RC), "IDs"))
		goto out;

	/* port 0: a free port of the local range */
	ca_sin(&a, false, 0);
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, (struct sockaddr *)&a), 0);
	ret = ca_port_of(&x->id->route.addr.src_addr);
	RDMA_KT_EXPECT(ctx, ret >= 1024, "port %d", ret);
	RDMA_KT_EQ(ctx, rdma_listen(x->id, 1), 0);
	RDMA_KT_EQ(ctx, rdma_listen(x->id, 1), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_set_afonly(x->id, 1), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_set_reuseaddr(x->id, 1), -EINVAL);
	ca_free(x);
	x = ca_new();
	if (!RDMA_KT_EXPECT(ctx, x && ca_id(x, RDMA_PS_TCP, IB_QPT_RC), "ID"))
		goto out;

	/* reuse: both may bind, neither may then listen */
	ca_sin(&a, false, CA_PORT + 11);
	RDMA_KT_EQ(ctx, rdma_set_reuseaddr(x->id, 1), 0);
	RDMA_KT_EQ(ctx, rdma_set_reuseaddr(y->id, 1), 0);
	RDMA_KT_EQ(ctx, rdma_bind_addr(x->id, (struct sockaddr *)&a), 0);
	RDMA_KT_EQ(ctx, rdma_bind_addr(y->id, (struct sockaddr *)&a), 0);
	RDMA_KT_EQ(ctx, rdma_listen(y->id, 1), -EADDRINUSE);

	RDMA_KT_EXPECT(ctx, !strcmp(rdma_event_msg(RDMA_CM_EVENT_ESTABLISHED),
				    "established") &&
		       !strcmp(rdma_event_msg(99), "unrecognized event"),
		       "event names");
	RDMA_KT_EQ(ctx, be64_to_cpu(rdma_get_service_id(x->id, ca_sa(&a))),
		   RDMA_IB_IP_PS_TCP | (CA_PORT + 11));
	rdma_read_gids(x->id, &sg, NULL);
	rdma_kt_gid_v4(&dg, LT_ADDR4);
	RDMA_KT_EXPECT(ctx, !memcmp(&sg, &dg, 16), "source GID %pI6", sg.raw);
	RDMA_KT_EXPECT(ctx, !rdma_iw_cm_id(x->id), "no iWARP CM ID");
out:
	ca_free(x);
	ca_free(y);
	ca_free(z);
}

/*
 * UD through SIDR: the ESTABLISHED event's address vector reaches the
 * passive QP with the UDP port space's Q_Key; a port nobody serves and a
 * listener that rejects answer with SIDR statuses 1 and 2.
 */
void cma_ud_sidr(struct rdma_ktap_ctx *ctx)
{
	struct rdma_conn_param p = ca_req_param;
	struct sockaddr_storage any, dst;
	struct ca_end *l, *c, *s = NULL;
	struct ib_wc wc;
	struct lt_wr w = { .op = IB_WR_SEND, .wr_id = 21, .signaled = true,
			   .len = 64 };

	ca_any(&any, AF_INET, CA_PORT + 20);
	ca_sin(&dst, false, CA_PORT + 20);
	l = ca_listener(ctx, RDMA_PS_UDP, IB_QPT_UD, &any, CA_ACCEPT);
	c = ca_new();
	if (!l || !RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_UDP, IB_QPT_UD),
				  "client ID") ||
	    !ca_resolve(ctx, c, &dst) || !RDMA_KT_EQ(ctx, ca_qp(c), 0))
		goto out;
	s = l->child;
	if (!RDMA_KT_EQ(ctx, rdma_connect(c->id, &p), 0) ||
	    !ca_expect(ctx, s, RDMA_CM_EVENT_CONNECT_REQUEST, 0))
		goto out;
	RDMA_KT_EQ(ctx, s->pdata_len, IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - 36);
	RDMA_KT_EXPECT(ctx, !memcmp(s->pdata, CA_REQ_DATA, sizeof(CA_REQ_DATA)),
		       "SIDR request data");
	if (!ca_expect(ctx, c, RDMA_CM_EVENT_ESTABLISHED, 0))
		goto out;
	RDMA_KT_EQ(ctx, c->ud_qpn, lt_qpn(&s->qp));
	RDMA_KT_EQ(ctx, c->ud_qkey, RDMA_UDP_QKEY);
	RDMA_KT_EQ(ctx, c->pdata_len, IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	RDMA_KT_EXPECT(ctx, !memcmp(c->pdata, CA_REP_DATA, sizeof(CA_REP_DATA)),
		       "SIDR reply data");
	if (!RDMA_KT_EXPECT(ctx, c->ah, "no AH from the ESTABLISHED event"))
		goto out;
	lt_fill(c->qp.tx, 64, 21);
	w.laddr = c->qp.tx_dma;
	w.ah = c->ah;
	w.rqpn = c->ud_qpn;
	w.qkey = c->ud_qkey;
	if (RDMA_KT_EQ(ctx, lt_post_recv(s->qp.qp, NULL, 22, s->qp.rx_dma,
					 LT_BUF), 0) &&
	    RDMA_KT_EQ(ctx, lt_post_send(c->qp.qp, &w, NULL), 0) &&
	    lt_expect_wc(ctx, c->qp.scq, "UD SEND", 21, IB_WC_SUCCESS,
			 IB_WC_SEND, NULL) &&
	    lt_expect_wc(ctx, s->qp.rcq, "UD RECV", 22, IB_WC_SUCCESS,
			 IB_WC_RECV, &wc) &&
	    lt_expect_data(ctx, s->qp.rx + LT_GRH, 64, 21, "UD SEND")) {
		RDMA_KT_EQ(ctx, wc.src_qp, lt_qpn(&c->qp));
		lt_traffic.sends++;
		lt_traffic.recvs++;
		lt_traffic.pkts++;
	}
	ca_quiet(ctx, s);
out:
	ca_free(c);
	ca_free(l);

	/* no listener: SIDR status 1; a refusing one: status 2 */
	c = ca_new();
	ca_sin(&dst, false, CA_PORT + 21);
	if (RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_UDP, IB_QPT_UD), "ID") &&
	    ca_resolve(ctx, c, &dst) && RDMA_KT_EQ(ctx, ca_qp(c), 0) &&
	    RDMA_KT_EQ(ctx, rdma_connect(c->id, &p), 0))
		ca_expect(ctx, c, RDMA_CM_EVENT_UNREACHABLE, IB_SIDR_UNSUPPORTED);
	ca_free(c);
	ca_any(&any, AF_INET, CA_PORT + 22);
	ca_sin(&dst, false, CA_PORT + 22);
	l = ca_listener(ctx, RDMA_PS_UDP, IB_QPT_UD, &any, CA_REJECT);
	c = ca_new();
	if (l && RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_UDP, IB_QPT_UD),
				"ID") &&
	    ca_resolve(ctx, c, &dst) && RDMA_KT_EQ(ctx, ca_qp(c), 0) &&
	    RDMA_KT_EQ(ctx, rdma_connect(c->id, &p), 0))
		ca_expect(ctx, c, RDMA_CM_EVENT_UNREACHABLE, IB_SIDR_REJECT);
	ca_free(c);
	ca_free(l);
}

/* RoCE multicast: the join's event, and what is refused. */
void cma_multicast(struct rdma_ktap_ctx *ctx)
{
	static const u8 mac[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	struct sockaddr_in grp = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(0xef010203),
	};
	struct sockaddr_in6 grp6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = { .s6_addr = { 0xff, 0x0e, [15] = 1 } },
	};
	struct sockaddr_storage a;
	struct ca_end *u, *r;

	u = ca_new();
	r = ca_new();
	if (!RDMA_KT_EXPECT(ctx, u && r && ca_id(u, RDMA_PS_UDP, IB_QPT_UD) &&
			    ca_id(r, RDMA_PS_TCP, IB_QPT_RC), "IDs"))
		goto out;
	RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp, 1,
					    u), -EINVAL);	/* no device */
	ca_sin(&a, false, 0);
	RDMA_KT_EQ(ctx, rdma_bind_addr(u->id, (struct sockaddr *)&a), 0);
	RDMA_KT_EQ(ctx, rdma_bind_addr(r->id, (struct sockaddr *)&a), 0);
	RDMA_KT_EQ(ctx, rdma_join_multicast(r->id, (struct sockaddr *)&grp, 1,
					    r), -EINVAL);	/* not UD */
	RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp, 2,
					    u), -EINVAL);
	RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp6, 1,
					    u), -EOPNOTSUPP);
	if (!RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp,
						 1, u), 0) ||
	    !ca_expect(ctx, u, RDMA_CM_EVENT_MULTICAST_JOIN, 0))
		goto out;
	RDMA_KT_EXPECT(ctx, !memcmp(u->mc_dmac, mac, ETH_ALEN),
		       "group MAC %pM", u->mc_dmac);
	RDMA_KT_EQ(ctx, u->ud_qpn, 0xffffff);
	RDMA_KT_EQ(ctx, u->ud_qkey, RDMA_UDP_QKEY);
	RDMA_KT_EXPECT(ctx, u->mc_ctx == u, "join context");
	RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp, 1,
					    u), -EADDRINUSE);
	rdma_leave_multicast(u->id, (struct sockaddr *)&grp);
	RDMA_KT_EQ(ctx, rdma_join_multicast(u->id, (struct sockaddr *)&grp, 8,
					    u), 0);
	ca_expect(ctx, u, RDMA_CM_EVENT_MULTICAST_JOIN, 0);
	/* left by rdma_destroy_id() */
out:
	ca_free(u);
	ca_free(r);
}

/* Resolution that fails, and the wildcard destination (this host). */
void cma_addr_errors(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage dst, any;
	struct ca_end *c;

	c = ca_new();
	if (!RDMA_KT_EXPECT(ctx, c && ca_id(c, RDMA_PS_TCP, IB_QPT_RC), "ID"))
		goto out;
	/* nobody answers ARP for .99 of the module's /24 */
	ca_sin(&dst, false, CA_PORT);
	((struct sockaddr_in *)&dst)->sin_addr.s_addr = htonl(0x0a0d0063);
	if (RDMA_KT_EQ(ctx, rdma_resolve_addr(c->id, NULL,
					      (struct sockaddr *)&dst, 300), 0) &&
	    RDMA_KT_EXPECT(ctx, wait_event_timeout(c->wq, READ_ONCE(c->nev) > 0,
						   msecs_to_jiffies(LT_WAIT_MS)),
			   "no event")) {
		c->seen++;
		RDMA_KT_EQ(ctx, c->ev[0], RDMA_CM_EVENT_ADDR_ERROR);
		RDMA_KT_EXPECT(ctx, c->status[0] < 0, "status %d",
			       c->status[0]);
	}
	/* back to ADDR_BOUND: another family is refused, the wildcard works */
	ca_any(&any, AF_INET6, CA_PORT);
	RDMA_KT_EQ(ctx, rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&any,
					  LT_WAIT_MS), -EINVAL);
	ca_any(&any, AF_INET, CA_PORT);
	if (RDMA_KT_EQ(ctx, rdma_resolve_addr(c->id, NULL,
					      (struct sockaddr *)&any,
					      LT_WAIT_MS), 0) &&
	    ca_expect(ctx, c, RDMA_CM_EVENT_ADDR_RESOLVED, 0))
		RDMA_KT_EXPECT(ctx, c->id->device &&
			       ((struct sockaddr_in *)&c->id->route.addr.dst_addr)
			       ->sin_addr.s_addr,
			       "wildcard destination resolved to %pISpc",
			       &c->id->route.addr.dst_addr);
	RDMA_KT_EQ(ctx, rdma_resolve_route(c->id, 0), -EINVAL);
out:
	ca_free(c);
}

/*
 * A path through user space's layout and back, given to another ID with
 * rdma_set_ib_path(); QP and AH attributes in the user layout.
 */
void cma_user_layouts(struct rdma_ktap_ctx *ctx)
{
	union ib_gid dgid = { .raw = { 0xfd, [15] = 9 } };
	struct sa_path_rec k, *mine, *given;
	struct ib_uverbs_qp_attr uq = {};
	struct ib_uverbs_ah_attr ua;
	struct ib_qp_attr qa = {};
	struct ib_user_path_rec u;
	struct rdma_ah_attr ah = {};
	struct sockaddr_storage dst;
	struct ca_end *a, *b;
	int mask = 0;

	a = ca_new();
	b = ca_new();
	ca_sin(&dst, false, CA_PORT + 30);
	if (!RDMA_KT_EXPECT(ctx, a && b && ca_id(a, RDMA_PS_TCP, IB_QPT_RC) &&
			    ca_id(b, RDMA_PS_TCP, IB_QPT_RC), "IDs") ||
	    !ca_resolve(ctx, a, &dst))
		goto out;
	mine = a->id->route.path_rec;
	ib_copy_path_rec_to_user(&u, mine);
	RDMA_KT_EXPECT(ctx, !memcmp(u.dgid, mine->dgid.raw, 16) && !u.dlid &&
		       u.mtu == mine->mtu && u.pkey == mine->pkey &&
		       u.flow_label == mine->flow_label &&
		       u.hop_limit == mine->hop_limit,
		       "path in the user layout");
	ib_copy_path_rec_from_user(&k, &u);
	RDMA_KT_EQ(ctx, k.rec_type, SA_PATH_REC_TYPE_IB);
	RDMA_KT_EXPECT(ctx, !memcmp(&k.sgid, &mine->sgid, 16) &&
		       k.packet_life_time == mine->packet_life_time &&
		       k.service_id == 0, "path back from the user layout");
	/* not before the address is resolved; then as a RoCE path */
	RDMA_KT_EQ(ctx, rdma_set_ib_path(b->id, &k), -EINVAL);
	if (RDMA_KT_EQ(ctx, rdma_resolve_addr(b->id, NULL,
					      (struct sockaddr *)&dst,
					      LT_WAIT_MS), 0) &&
	    ca_expect(ctx, b, RDMA_CM_EVENT_ADDR_RESOLVED, 0) &&
	    RDMA_KT_EQ(ctx, rdma_set_ib_path(b->id, &k), 0)) {
		given = b->id->route.path_rec;
		RDMA_KT_EXPECT(ctx, given &&
			       given->rec_type == SA_PATH_REC_TYPE_ROCE_V2 &&
			       given->roce.route_resolved &&
			       !memcmp(given->roce.dmac, mine->roce.dmac,
				       ETH_ALEN) &&
			       given->mtu == mine->mtu,
			       "the path given is a RoCE v2 path");
		RDMA_KT_EQ(ctx, rdma_set_ib_path(b->id, &k), -EINVAL);
	}

	/* INIT attributes of a QP without a connection yet */
	qa.qp_state = IB_QPS_INIT;
	if (RDMA_KT_EQ(ctx, rdma_init_qp_attr(a->id, &qa, &mask), 0)) {
		uq.qp_attr_mask = mask;
		ib_copy_qp_attr_to_user(lt_dev, &uq, &qa);
		RDMA_KT_EXPECT(ctx, uq.qp_state == IB_QPS_INIT &&
			       uq.port_num == 1 && uq.pkey_index == qa.pkey_index &&
			       uq.qp_attr_mask == (IB_QP_STATE | IB_QP_PKEY_INDEX |
						   IB_QP_PORT |
						   IB_QP_ACCESS_FLAGS),
			       "QP attributes in the user layout (mask %#x)",
			       uq.qp_attr_mask);
	}
	ah.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah, 1);
	rdma_ah_set_sl(&ah, 3);
	rdma_ah_set_grh(&ah, &dgid, 0x12345, 2, 64, 5);
	ib_copy_ah_attr_to_user(lt_dev, &ua, &ah);
	RDMA_KT_EXPECT(ctx, ua.is_global && ua.port_num == 1 && ua.sl == 3 &&
		       ua.grh.flow_label == 0x12345 && ua.grh.sgid_index == 2 &&
		       ua.grh.hop_limit == 64 && ua.grh.traffic_class == 5 &&
		       !memcmp(ua.grh.dgid, dgid.raw, 16),
		       "AH attributes in the user layout");
out:
	ca_free(a);
	ca_free(b);
}
