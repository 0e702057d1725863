// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP connection manager, see siw_cm.h.
 *
 * Active side: siw_connect() binds a socket and starts a non-blocking
 * connect; once TCP is up the work sends the MPA request, reads and checks
 * the reply, starts the QP and reports CONNECT_REPLY.
 *
 * Passive side: a listener's work accepts the connections; the work of
 * each new endpoint reads and checks the MPA request and reports
 * CONNECT_REQUEST with a cookie as provider_data.  siw_accept() and
 * siw_reject() claim the endpoint by that cookie and send the reply from
 * the caller's context, so that a failure is returned to iw_cm (which
 * expects no event after a failed accept).  A cookie rather than a
 * pointer: iw_cm may answer a request long after the connection is gone,
 * or never answer one it could not deliver.
 *
 * A bound connection ends through siw_cm_close() (from the QP), the
 * peer's FIN or reset, or its device going away: the work detaches the
 * QP (siw_qp_conn_lost()), releases the socket and reports CLOSE.
 */
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "siw.h"
#include "siw_cm.h"

static bool mpa_crc;
module_param(mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "Ask for MPA CRC32c on new connections (default: no)");

static unsigned int mpa_rev = SIW_MPA_REV2;

static int siw_set_mpa_rev(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, SIW_MPA_REV1, SIW_MPA_REV2);
}

static const struct kernel_param_ops siw_mpa_rev_ops = {
	.set = siw_set_mpa_rev,
	.get = param_get_uint,
};

module_param_cb(mpa_rev, &siw_mpa_rev_ops, &mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev, "Highest MPA revision offered and accepted, 1 or 2 (default 2)");

static struct workqueue_struct *siw_cm_wq;

/* Passive endpoints whose request waits for the ULP's answer, by cookie */
static DEFINE_XARRAY_ALLOC1(siw_cm_answers);
static u32 siw_cm_next_cookie;

/* Endpoints not freed yet, for siw_cm_exit() */
static atomic_t siw_cm_ceps = ATOMIC_INIT(0);
/* Where siw_cm_exit() and siw_cm_net_exit() wait */
static DECLARE_WAIT_QUEUE_HEAD(siw_cm_idle);

/*
 * The CM's sockets of one network namespace.  Kernel sockets do not hold
 * their namespace, so a dying namespace waits in siw_cm_net_exit() until
 * the CM has released them all.  By then its netdevs are gone (device
 * exits run before subsystem exits) and with them, by siw_cm_dev_down(),
 * every connection of theirs is being reset.
 */
struct siw_cm_net {
	atomic_t	socks;
};

static unsigned int siw_cm_net_id;

static struct siw_cm_net *siw_cm_net(struct net *net)
{
	return net_generic(net, siw_cm_net_id);
}

static void siw_cm_net_exit(struct net *net)
{
	struct siw_cm_net *cn = siw_cm_net(net);

	wait_event(siw_cm_idle, !atomic_read(&cn->socks));
}

static struct pernet_operations siw_cm_net_ops = {
	.exit = siw_cm_net_exit,
	.id = &siw_cm_net_id,
	.size = sizeof(struct siw_cm_net),
};

static void siw_cep_work(struct work_struct *work);

/* ---- endpoints -------------------------------------------------------- */

static void siw_cep_free(struct kref *ref)
{
	struct siw_cep *cep = container_of(ref, struct siw_cep, ref);
	struct siw_device *sdev = cep->sdev;

	mutex_destroy(&cep->mutex);
	kfree(cep);
	put_device(&sdev->base.dev);
	if (atomic_dec_and_test(&siw_cm_ceps))
		wake_up(&siw_cm_idle);
}

static void siw_cep_get(struct siw_cep *cep)
{
	kref_get(&cep->ref);
}

static void siw_cep_put(struct siw_cep *cep)
{
	kref_put(&cep->ref, siw_cep_free);
}

/* Record @ev and queue the work.  Any context; the caller holds a reference. */
static void siw_cep_event(struct siw_cep *cep, enum siw_cep_event ev)
{
	set_bit(ev, &cep->events);
	siw_cep_get(cep);
	if (!queue_work(siw_cm_wq, &cep->work))
		siw_cep_put(cep);
}

static void siw_cep_timer(struct timer_list *t)
{
	struct siw_cep *cep = from_timer(cep, t, timer);

	siw_cep_event(cep, SIW_EV_WAKE);
}

/* Start a step that must be over within @ms milliseconds. */
static void siw_cep_deadline(struct siw_cep *cep, unsigned int ms)
{
	cep->deadline = jiffies + msecs_to_jiffies(ms);
	mod_timer(&cep->timer, cep->deadline);
}

static bool siw_cep_expired(const struct siw_cep *cep)
{
	return time_after_eq(jiffies, cep->deadline);
}

/* A new endpoint in state NEW, holding its life reference. */
static struct siw_cep *siw_cep_new(struct siw_device *sdev)
{
	struct siw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	cep->sdev = sdev;
	get_device(&sdev->base.dev);
	atomic_inc(&siw_cm_ceps);
	INIT_LIST_HEAD(&cep->dev_entry);
	INIT_LIST_HEAD(&cep->listen_entry);
	mutex_init(&cep->mutex);
	INIT_WORK(&cep->work, siw_cep_work);
	timer_setup(&cep->timer, siw_cep_timer, 0);
	cep->state = SIW_CEP_NEW;
	return cep;
}

/* Make a set-up endpoint visible to siw_cm_dev_down(). */
static void siw_cep_publish(struct siw_cep *cep)
{
	spin_lock(&cep->sdev->cep_lock);
	list_add_tail(&cep->dev_entry, &cep->sdev->ceps);
	spin_unlock(&cep->sdev->cep_lock);
}

/* ---- socket callbacks ------------------------------------------------- */

/*
 * A listening socket's sk_data_ready: a connection waits to be accepted.
 * Sockets the listener accepts start as copies of it, with this callback
 * and the listener's sk_user_data, until the CM installs their own: hence
 * the look at the state before sk_user_data is used.
 */
static void siw_cm_listen_ready(struct sock *sk)
{
	read_lock_bh(&sk->sk_callback_lock);
	if (inet_sk_state_load(sk) == TCP_LISTEN && sk->sk_user_data)
		siw_cep_event(sk->sk_user_data, SIW_EV_WAKE);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * A connection's sk_data_ready.  sk_user_data is NULL when the callbacks
 * were being restored as the caller read this function's address.
 */
static void siw_cm_data_ready(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		/* Pairs with siw_cep_bind(): @qp is set once @bound is */
		if (smp_load_acquire(&cep->bound))
			siw_qp_rx_kick(cep->qp);
		else
			siw_cep_event(cep, SIW_EV_WAKE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * A connection's sk_state_change.  The socket's own callback runs after
 * ours: it wakes whoever sleeps on the socket, such as a QP sending.
 */
static void siw_cm_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk);
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		orig = cep->saved_state_change;
		siw_cep_event(cep, SIW_EV_WAKE);
	} else {
		orig = sk->sk_state_change;
	}
	read_unlock_bh(&sk->sk_callback_lock);
	orig(sk);
}

/* Give @sock to @cep and install the CM's callbacks on it. */
static void siw_cep_attach(struct siw_cep *cep, struct socket *sock,
			   bool listener)
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	atomic_inc(&siw_cm_net(sock_net(sk))->socks);
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cep;
	if (listener) {
		sk->sk_data_ready = siw_cm_listen_ready;
	} else {
		sk->sk_data_ready = siw_cm_data_ready;
		sk->sk_state_change = siw_cm_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Release the socket; the last one of a namespace may let it go. */
static void siw_cep_release_sock(struct siw_cep *cep)
{
	struct siw_cm_net *cn = siw_cm_net(sock_net(cep->sock->sk));

	sock_release(cep->sock);
	cep->sock = NULL;
	if (atomic_dec_and_test(&cn->socks))
		wake_up(&siw_cm_idle);
}

/* Restore the socket's callbacks: no callback sees @cep after this. */
static void siw_cep_detach(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* ---- socket I/O --------------------------------------------------------- */

static int siw_addr_len(const struct sockaddr_storage *ss)
{
	switch (ss->ss_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/* Port and wildcard test of an AF_INET or AF_INET6 address */
static __be16 siw_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	return ((const struct sockaddr_in6 *)ss)->sin6_port;
}

static bool siw_addr_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Both ends of the connection, as the socket has them. */
static int siw_cep_addrs(struct siw_cep *cep)
{
	int rc = kernel_getsockname(cep->sock, (struct sockaddr *)&cep->laddr);

	if (rc >= 0)
		rc = kernel_getpeername(cep->sock,
					(struct sockaddr *)&cep->raddr);
	return rc < 0 ? rc : 0;
}

static int siw_cep_recv(struct siw_cep *cep, void *buf, size_t len, int flags)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_recvmsg(cep->sock, &msg, &iov, 1, len,
			      flags | MSG_DONTWAIT);
}

/*
 * Send the @len bytes of @buf without waiting: an MPA frame goes first on
 * the connection, so the socket has room for it.
 */
static int siw_cep_send(struct siw_cep *cep, unsigned int len)
{
	struct kvec iov = { .iov_base = cep->buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int rc = kernel_sendmsg(cep->sock, &msg, &iov, 1, len);

	if (rc == (int)len)
		return 0;
	return rc < 0 ? rc : -ENOBUFS;
}

/*
 * Read what is missing of the peer's MPA frame into @buf, and not a byte
 * more: what follows belongs to the QP.
 *
 * Return: 0 once the frame is complete, -EAGAIN while more is to come,
 * -EMSGSIZE for more private data than MPA allows, -ECONNRESET when the
 * peer closed, or the socket's error.
 */
static int siw_cep_read_frame(struct siw_cep *cep)
{
	const struct siw_mpa_frame *f = (const void *)cep->buf;
	unsigned int want;
	int rc;

	for (;;) {
		want = SIW_MPA_FRAME_LEN;
		if (cep->have >= SIW_MPA_FRAME_LEN) {
			if (be16_to_cpu(f->pd_len) > SIW_MPA_MAX_PD)
				return -EMSGSIZE;
			want += be16_to_cpu(f->pd_len);
		}
		if (cep->have == want)
			return 0;
		rc = siw_cep_recv(cep, cep->buf + cep->have, want - cep->have,
				  0);
		if (rc <= 0)
			return rc ?: -ECONNRESET;
		cep->have += rc;
	}
}

/*
 * Whether the peer sent bytes the QP has not read yet: in the socket, or
 * read ahead into its receive stage.
 */
static bool siw_cep_unread(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int n;

	lock_sock(sk);
	n = tcp_inq(sk);
	release_sock(sk);
	return n > 0 || READ_ONCE(cep->qp->rx.stage_len);
}

/* ---- reports to iw_cm ------------------------------------------------- */

/*
 * Report @type to @id.  @mpa: the event carries the peer's MPA private
 * data and READ depths (CONNECT_REQUEST, CONNECT_REPLY after a reply).
 */
static int siw_cep_report(struct siw_cep *cep, struct iw_cm_id *id,
			  enum iw_cm_event_type type, int status, bool mpa)
{
	const struct siw_mpa_info *peer = &cep->peer;
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.local_addr = cep->laddr,
		.remote_addr = cep->raddr,
	};
	int rc;

	if (mpa) {
		ev.private_data = cep->buf + peer->pd_off;
		ev.private_data_len = peer->pd_len;
		ev.ird = min_t(u16, peer->v2 ? peer->ird : SIW_DEF_IRD, U8_MAX);
		ev.ord = min_t(u16, peer->v2 ? peer->ord : SIW_DEF_ORD, U8_MAX);
	}
	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		ev.provider_data = (void *)(unsigned long)cep->cookie;
	rc = id->event_handler(id, &ev);
	if (rc)
		siw_dbg(cep->sdev, "event %d of %pISpc not taken: %d\n", type,
			&cep->raddr, rc);
	return rc;
}

/* The connection's ID has had its last event. */
static void siw_cep_drop_id(struct siw_cep *cep)
{
	cep->cm_id->rem_ref(cep->cm_id);
	cep->cm_id = NULL;
}

/* ---- teardown ----------------------------------------------------------- */

static void siw_listen_free(struct kref *ref)
{
	kfree(container_of(ref, struct siw_listen, ref));
}

/* Leave the listener: a listening socket closes, a request was answered. */
static void siw_cep_unlisten(struct siw_cep *cep)
{
	struct siw_listen *listen = cep->listen;

	if (!listen)
		return;
	spin_lock(&listen->lock);
	list_del_init(&cep->listen_entry);
	if (!cep->listener)
		listen->pending--;
	spin_unlock(&listen->lock);
	cep->listen = NULL;
	kref_put(&listen->ref, siw_listen_free);
}

/*
 * End the endpoint: stop its timer and callbacks, reset the connection
 * (@reset) or let TCP close it in order, detach the QP, release socket and
 * QP, report the ID's last event (CLOSE for a connection that was up,
 * else CONNECT_REPLY with @err) and drop the life reference.
 *
 * Context: @cep->mutex held, and a reference of the caller's own.
 */
static void siw_cep_teardown(struct siw_cep *cep, bool reset)
{
	struct siw_device *sdev = cep->sdev;

	lockdep_assert_held(&cep->mutex);
	if (cep->state == SIW_CEP_DEAD)
		return;
	cep->state = SIW_CEP_DEAD;
	timer_shutdown_sync(&cep->timer);
	if (cep->sock) {
		/* Also wakes a QP sending on the socket */
		if (reset)
			tcp_abort(cep->sock->sk, ECONNRESET);
		siw_cep_detach(cep);
	}
	if (cep->bound)
		siw_qp_conn_lost(cep->qp, reset);
	else if (cep->qp)
		siw_qp_setup(cep->qp, cep, true);
	if (cep->qp) {
		siw_qp_put(cep->qp);
		cep->qp = NULL;
	}
	if (cep->sock)
		siw_cep_release_sock(cep);
	if (cep->cookie) {
		if (xa_cmpxchg(&siw_cm_answers, cep->cookie, cep, NULL, 0) ==
		    cep)
			siw_cep_put(cep);
		cep->cookie = 0;
	}
	siw_cep_unlisten(cep);
	if (cep->cm_id) {
		if (cep->bound)
			siw_cep_report(cep, cep->cm_id, IW_CM_EVENT_CLOSE, 0,
				       false);
		else
			siw_cep_report(cep, cep->cm_id,
				       IW_CM_EVENT_CONNECT_REPLY,
				       cep->err ?: -ECONNABORTED, false);
		siw_cep_drop_id(cep);
	}
	cep->bound = false;
	spin_lock(&sdev->cep_lock);
	list_del_init(&cep->dev_entry);
	spin_unlock(&sdev->cep_lock);
	siw_cep_put(cep);
}

/* ---- MPA negotiation ---------------------------------------------------- */

/*
 * The revision 2 block of our MPA request: our READ depths, the
 * peer-to-peer model, and the two zero-length RTR messages we can send.
 */
static void siw_cm_v2_offer(struct siw_mpa_v2 *v2, u16 ird, u16 ord)
{
	v2->ird = cpu_to_be16(SIW_MPA_V2_P2P | ird);
	v2->ord = cpu_to_be16(SIW_MPA_V2_RTR_READ | SIW_MPA_V2_RTR_WRITE | ord);
}

/*
 * The RTR message a responder settles on (RFC 6581): none unless the
 * initiator asks for the peer-to-peer model, else a zero-length READ if
 * offered, else a zero-length WRITE.
 *
 * Return: the SIW_MPA_V2_RTR_* bit chosen, 0 for none, or -EOPNOTSUPP
 * when the initiator offers no RTR message we take.
 */
static int siw_rtr_pick(const struct siw_mpa_info *peer)
{
	if (!peer->v2 || !(peer->v2_ird_bits & SIW_MPA_V2_P2P))
		return 0;
	if (peer->v2_ord_bits & SIW_MPA_V2_RTR_READ)
		return SIW_MPA_V2_RTR_READ;
	if (peer->v2_ord_bits & SIW_MPA_V2_RTR_WRITE)
		return SIW_MPA_V2_RTR_WRITE;
	return -EOPNOTSUPP;
}

/*
 * What an accepted connection settles (@conn) and the block of our reply
 * (@v2, used in revision 2): CRC if either end wants it; our depths from
 * @param, the outbound one bounded by the initiator's inbound depth; the
 * initiator's RTR message awaited if it asked for the peer-to-peer model.
 */
static void siw_passive_conn(const struct siw_cep *cep,
			     const struct iw_cm_conn_param *param,
			     struct siw_conn_params *conn,
			     struct siw_mpa_v2 *v2)
{
	const struct siw_mpa_info *peer = &cep->peer;
	int rtr = siw_rtr_pick(peer);

	conn->crc = READ_ONCE(mpa_crc) || (peer->flags & SIW_MPA_F_CRC);
	conn->ird = param->ird;
	conn->ord = param->ord;
	if (peer->v2)
		conn->ord = min(conn->ord, peer->ird);
	conn->rtr = rtr ? SIW_RTR_AWAIT : SIW_RTR_NONE;
	v2->ird = cpu_to_be16((rtr ? SIW_MPA_V2_P2P : 0) | conn->ird);
	v2->ord = cpu_to_be16(rtr | conn->ord);
}

/*
 * What an active connection settles from the reply: CRC if either end
 * wants it; our depths, the outbound one bounded by the responder's
 * inbound depth; the RTR message the responder chose.
 *
 * Return: 0, or -EPROTO when the responder asks for the peer-to-peer
 * model without an RTR message we can send.
 */
static int siw_active_conn(const struct siw_cep *cep,
			   struct siw_conn_params *conn)
{
	const struct siw_mpa_info *peer = &cep->peer;

	conn->crc = (cep->req_flags | peer->flags) & SIW_MPA_F_CRC;
	conn->ird = cep->ird;
	conn->ord = cep->ord;
	conn->rtr = SIW_RTR_NONE;
	if (!peer->v2)
		return 0;
	conn->ord = min(conn->ord, peer->ird);
	if (!(peer->v2_ird_bits & SIW_MPA_V2_P2P))
		return 0;
	if (peer->v2_ord_bits & SIW_MPA_V2_RTR_READ)
		conn->rtr = SIW_RTR_SEND_READ;
	else if (peer->v2_ord_bits & SIW_MPA_V2_RTR_WRITE)
		conn->rtr = SIW_RTR_SEND_WRITE;
	else
		return -EPROTO;
	return 0;
}

/* @v2: the frame to send carries the revision 2 block */
static int siw_cm_check_param(struct siw_device *sdev,
			      const struct iw_cm_conn_param *param, bool v2)
{
	unsigned int room = SIW_MPA_MAX_PD;

	if (v2)
		room -= SIW_MPA_V2_LEN;
	if (param->ord > SIW_MAX_ORD || param->ird > SIW_MAX_IRD ||
	    param->private_data_len > room ||
	    (param->private_data_len && !param->private_data)) {
		siw_dbg(sdev, "connection parameters refused: ord %u ird %u, %u bytes of private data\n",
			param->ord, param->ird, param->private_data_len);
		return -EINVAL;
	}
	return 0;
}

/* The QP took the connection: from now on the socket's data goes to it. */
static void siw_cep_bind(struct siw_cep *cep)
{
	/* Pairs with siw_cm_data_ready(): @qp set before @bound */
	smp_store_release(&cep->bound, true);
	cep->state = SIW_CEP_RTS;
	/* Data that came after siw_qp_start()'s own look reached the CM */
	siw_qp_rx_kick(cep->qp);
	/* A FIN or reset that came before */
	siw_cep_event(cep, SIW_EV_WAKE);
}

/* ---- passive side --------------------------------------------------------- */

/*
 * Send an MPA reply with R set and @pd, then close (in order once it is
 * sent).  It carries the revision 2 block, with no depth nor RTR bit, if
 * the request carried one.
 */
static int siw_cep_reject(struct siw_cep *cep, u8 rev, const void *pd,
			  u8 pd_len)
{
	static const struct siw_mpa_v2 v2_none;
	unsigned int len;
	int rc;

	len = siw_mpa_build(cep->buf, true, SIW_MPA_F_REJECT, rev,
			    cep->peer.v2 ? &v2_none : NULL, pd, pd_len);
	rc = siw_cep_send(cep, len);
	if (rc)
		siw_dbg(cep->sdev, "MPA reject to %pISpc not sent: %d\n",
			&cep->raddr, rc);
	else
		siw_count(cep->sdev, SIW_CNT_MPA_REJECTED);
	siw_cep_teardown(cep, rc != 0);
	return rc;
}

/*
 * A checked request: give it a cookie and report it to the listener,
 * under the listener's lock so that siw_destroy_listen() does not return
 * while the report is under way.  A request that cannot be reported is
 * refused.
 */
static void siw_passive_report(struct siw_cep *cep)
{
	struct siw_listen *listen = cep->listen;
	struct iw_cm_id *id;
	int rc;

	siw_cep_get(cep);
	rc = xa_alloc_cyclic(&siw_cm_answers, &cep->cookie, cep,
			     XA_LIMIT(1, U32_MAX), &siw_cm_next_cookie,
			     GFP_KERNEL);
	if (rc < 0) {
		cep->cookie = 0;
		siw_cep_put(cep);
	} else {
		cep->state = SIW_CEP_ANSWER;
		siw_cep_deadline(cep, SIW_CM_TIMEOUT_MS);
		rc = -ENOTCONN;
		spin_lock(&listen->lock);
		id = listen->cm_id;
		if (id) {
			list_del_init(&cep->listen_entry);
			rc = siw_cep_report(cep, id,
					    IW_CM_EVENT_CONNECT_REQUEST, 0,
					    true);
		}
		spin_unlock(&listen->lock);
	}
	if (rc) {
		siw_dbg(cep->sdev, "request of %pISpc refused: not reported: %d\n",
			&cep->raddr, rc);
		siw_cep_reject(cep, cep->peer.rev, NULL, 0);
	}
}

/* MPA_REQ: read the request, check it, report it. */
static void siw_passive_request(struct siw_cep *cep)
{
	struct siw_device *sdev = cep->sdev;
	struct siw_mpa_info *peer = &cep->peer;
	u8 max_rev = READ_ONCE(mpa_rev);
	int rc;

	rc = siw_cep_read_frame(cep);
	if (rc == -EAGAIN) {
		if (siw_cep_expired(cep)) {
			siw_dbg(sdev, "no MPA request from %pISpc in time\n",
				&cep->raddr);
			siw_count(sdev, SIW_CNT_MPA_BAD);
			siw_cep_teardown(cep, true);
		}
		return;
	}
	if (rc) {
		siw_dbg(sdev, "MPA request of %pISpc not read: %d\n",
			&cep->raddr, rc);
		if (rc == -EMSGSIZE)
			siw_count(sdev, SIW_CNT_MPA_BAD);
		siw_cep_teardown(cep, true);
		return;
	}
	rc = siw_mpa_parse(cep->buf, cep->have, false, peer);
	if (rc != (int)cep->have) {
		siw_dbg(sdev, "bad MPA request from %pISpc: %d\n", &cep->raddr,
			rc);
		siw_count(sdev, SIW_CNT_MPA_BAD);
		/* Markers asked for in an otherwise right frame */
		if (rc == -EOPNOTSUPP && peer->rev <= max_rev)
			siw_cep_reject(cep, peer->rev, NULL, 0);
		else
			siw_cep_teardown(cep, true);
		return;
	}
	if (peer->rev > max_rev) {
		siw_dbg(sdev, "MPA revision %u of %pISpc above mpa_rev %u\n",
			peer->rev, &cep->raddr, max_rev);
		siw_count(sdev, SIW_CNT_MPA_BAD);
		siw_cep_teardown(cep, true);
		return;
	}
	if (peer->pd_len > U8_MAX || siw_rtr_pick(peer) < 0) {
		siw_dbg(sdev, "MPA request of %pISpc refused: %u bytes of private data, RTR offer %#x/%#x\n",
			&cep->raddr, peer->pd_len, peer->v2_ird_bits,
			peer->v2_ord_bits);
		siw_cep_reject(cep, peer->rev, NULL, 0);
		return;
	}
	siw_passive_report(cep);
}

/*
 * ANSWER: the initiator may not send before our reply (RFC 5044 7.1), and
 * waits for it no longer than we would.
 */
static void siw_passive_waiting(struct siw_cep *cep)
{
	u8 byte;
	int rc;

	rc = siw_cep_recv(cep, &byte, 1, MSG_PEEK);
	if (rc == -EAGAIN) {
		if (siw_cep_expired(cep)) {
			siw_dbg(cep->sdev, "request of %pISpc not answered in time\n",
				&cep->raddr);
			siw_cep_teardown(cep, true);
		}
		return;
	}
	if (rc > 0) {
		siw_dbg(cep->sdev, "%pISpc sent data before the MPA reply\n",
			&cep->raddr);
		siw_count(cep->sdev, SIW_CNT_MPA_BAD);
	} else {
		siw_dbg(cep->sdev, "%pISpc closed before the MPA reply: %d\n",
			&cep->raddr, rc);
	}
	siw_cep_teardown(cep, true);
}

/* A connection the listening endpoint @lcep accepted */
static void siw_passive_new(struct siw_cep *lcep, struct socket *sock)
{
	struct siw_listen *listen = lcep->listen;
	struct siw_cep *cep = siw_cep_new(lcep->sdev);
	bool counted = false;
	int rc;

	if (!cep) {
		sock_no_linger(sock->sk);
		sock_release(sock);
		return;
	}
	siw_cep_get(cep);
	/*
	 * The listener's mutex is held: the new endpoint's nests in it (a
	 * new endpoint never takes its listener's).
	 */
	mutex_lock_nested(&cep->mutex, SINGLE_DEPTH_NESTING);
	siw_cep_attach(cep, sock, false);
	/* An accepted socket starts with the listener's sk_data_ready */
	cep->saved_data_ready = lcep->saved_data_ready;
	rc = siw_cep_addrs(cep);
	if (rc) {
		siw_dbg(cep->sdev, "connection on %pISpc without addresses: %d\n",
			&lcep->laddr, rc);
		siw_cep_teardown(cep, true);
		goto out;
	}
	spin_lock(&listen->lock);
	if (listen->cm_id && listen->pending < listen->backlog) {
		listen->pending++;
		kref_get(&listen->ref);
		cep->listen = listen;
		list_add_tail(&cep->listen_entry, &listen->waiting);
		counted = true;
	}
	spin_unlock(&listen->lock);
	if (!counted) {
		siw_dbg(cep->sdev, "connection of %pISpc to %pISpc reset: backlog full or listener gone\n",
			&cep->raddr, &cep->laddr);
		siw_cep_teardown(cep, true);
		goto out;
	}
	tcp_sock_set_nodelay(sock->sk);
	cep->state = SIW_CEP_MPA_REQ;
	siw_cep_deadline(cep, SIW_CM_TIMEOUT_MS);
	siw_cep_publish(cep);
	/* Bytes that came before the callbacks were ours */
	siw_cep_event(cep, SIW_EV_WAKE);
out:
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
}

/* LISTEN: take every connection waiting on the socket. */
static void siw_listen_accept(struct siw_cep *lcep)
{
	struct socket *sock;
	int rc;

	for (;;) {
		rc = kernel_accept(lcep->sock, &sock, O_NONBLOCK);
		if (rc) {
			if (rc != -EAGAIN)
				siw_dbg(lcep->sdev, "accept on %pISpc failed: %d\n",
					&lcep->laddr, rc);
			return;
		}
		siw_passive_new(lcep, sock);
	}
}

/* ---- active side ------------------------------------------------------------ */

/* MPA_REP: read the reply, check it, start the QP, report. */
static void siw_active_reply(struct siw_cep *cep)
{
	struct siw_device *sdev = cep->sdev;
	struct siw_mpa_info *peer = &cep->peer;
	struct siw_conn_params conn;
	int rc;

	rc = siw_cep_read_frame(cep);
	if (rc == -EAGAIN) {
		if (siw_cep_expired(cep)) {
			siw_dbg(sdev, "no MPA reply from %pISpc in time\n",
				&cep->raddr);
			siw_count(sdev, SIW_CNT_MPA_BAD);
			cep->err = -ETIMEDOUT;
			siw_cep_teardown(cep, true);
		}
		return;
	}
	if (rc) {
		siw_dbg(sdev, "MPA reply of %pISpc not read: %d\n",
			&cep->raddr, rc);
		if (rc == -EMSGSIZE)
			siw_count(sdev, SIW_CNT_MPA_BAD);
		cep->err = -ECONNRESET;
		siw_cep_teardown(cep, true);
		return;
	}
	rc = siw_mpa_parse(cep->buf, cep->have, true, peer);
	if (rc != (int)cep->have || peer->rev > cep->rev ||
	    peer->pd_len > U8_MAX) {
		siw_dbg(sdev, "bad MPA reply from %pISpc: %d, revision %u\n",
			&cep->raddr, rc, peer->rev);
		siw_count(sdev, SIW_CNT_MPA_BAD);
		cep->err = -ECONNRESET;
		siw_cep_teardown(cep, true);
		return;
	}
	if (peer->flags & SIW_MPA_F_REJECT) {
		siw_dbg(sdev, "%pISpc rejected the connection\n", &cep->raddr);
		siw_count(sdev, SIW_CNT_MPA_REJECTED);
		siw_cep_report(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
			       -ECONNREFUSED, true);
		siw_cep_drop_id(cep);
		siw_cep_teardown(cep, false);
		return;
	}
	rc = siw_active_conn(cep, &conn);
	if (rc) {
		siw_dbg(sdev, "MPA reply of %pISpc: no RTR message we send (%#x/%#x)\n",
			&cep->raddr, peer->v2_ird_bits, peer->v2_ord_bits);
		siw_count(sdev, SIW_CNT_MPA_BAD);
		cep->err = -ECONNRESET;
		siw_cep_teardown(cep, true);
		return;
	}
	rc = siw_qp_start(cep->qp, cep, cep->sock, &conn);
	if (rc) {
		siw_dbg(sdev, "QP %u not started for %pISpc: %d\n",
			siw_qpn(cep->qp), &cep->raddr, rc);
		cep->err = rc;
		siw_cep_teardown(cep, true);
		return;
	}
	siw_cep_bind(cep);
	siw_count(sdev, SIW_CNT_CONN_ESTABLISHED);
	siw_cep_report(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0, true);
}

/* CONNECTING: once TCP is up, send the request built by siw_connect(). */
static void siw_active_connecting(struct siw_cep *cep)
{
	struct siw_device *sdev = cep->sdev;
	struct sock *sk = cep->sock->sk;
	int rc;

	switch (inet_sk_state_load(sk)) {
	case TCP_SYN_SENT:
		if (siw_cep_expired(cep)) {
			siw_dbg(sdev, "TCP connect to %pISpc timed out\n",
				&cep->raddr);
			cep->err = -ETIMEDOUT;
			siw_cep_teardown(cep, true);
		}
		return;
	case TCP_CLOSE:
		cep->err = sock_error(sk) ?: -ECONNRESET;
		siw_dbg(sdev, "TCP connect to %pISpc failed: %d\n",
			&cep->raddr, cep->err);
		siw_cep_teardown(cep, true);
		return;
	default:
		break;
	}
	rc = siw_cep_addrs(cep);
	if (!rc)
		rc = siw_cep_send(cep, cep->out_len);
	if (rc) {
		siw_dbg(sdev, "MPA request to %pISpc not sent: %d\n",
			&cep->raddr, rc);
		cep->err = -ECONNRESET;
		siw_cep_teardown(cep, true);
		return;
	}
	cep->state = SIW_CEP_MPA_REP;
	siw_cep_deadline(cep, SIW_CM_TIMEOUT_MS);
	siw_active_reply(cep);
}

/* ---- connections up and closing ------------------------------------------ */

/* The QP still has a Terminate to send (siw_qp_fatal(), tx_work). */
static bool siw_cep_term_pending(struct siw_qp *qp)
{
	bool pending;

	spin_lock_bh(&qp->orq_lock);
	pending = qp->tx.term_pending && !qp->tx.term_done;
	spin_unlock_bh(&qp->orq_lock);
	return pending;
}

/*
 * CLOSING: our FIN goes once the peer's data is read (if the peer closed
 * first) and a Terminate the QP has to send went out; the teardown comes
 * when the peer has closed too and the QP has read everything, or the
 * deadline passed (then with a reset).  A QP in ERR reads nothing more
 * (after a Terminate, say): what is left unread is dropped with the
 * socket.
 */
static void siw_cep_closing(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int st = inet_sk_state_load(sk);
	unsigned long poll;
	bool peer_fin, drained;
	int rc;

	if (st == TCP_CLOSE && READ_ONCE(sk->sk_err)) {
		siw_dbg(cep->sdev, "%pISpc reset the closing connection\n",
			&cep->raddr);
		siw_cep_teardown(cep, true);
		return;
	}
	peer_fin = (1 << st) & (TCPF_CLOSE_WAIT | TCPF_LAST_ACK |
				TCPF_CLOSING | TCPF_TIME_WAIT | TCPF_CLOSE);
	drained = !siw_cep_term_pending(cep->qp) &&
		  (!peer_fin || READ_ONCE(cep->qp->state) == IB_QPS_ERR ||
		   !siw_cep_unread(cep));
	if (drained && !cep->fin_sent) {
		rc = kernel_sock_shutdown(cep->sock, SHUT_WR);
		if (rc)
			siw_dbg(cep->sdev, "no FIN to %pISpc: %d\n",
				&cep->raddr, rc);
		cep->fin_sent = true;
	}
	if (peer_fin && drained) {
		siw_cep_teardown(cep, false);
		return;
	}
	if (siw_cep_expired(cep)) {
		siw_dbg(cep->sdev, "graceful close of %pISpc timed out\n",
			&cep->raddr);
		siw_cep_teardown(cep, true);
		return;
	}
	if (drained) {
		mod_timer(&cep->timer, cep->deadline);
		return;
	}
	siw_qp_rx_kick(cep->qp);
	poll = jiffies + msecs_to_jiffies(SIW_CM_DRAIN_POLL_MS);
	mod_timer(&cep->timer,
		  time_before(poll, cep->deadline) ? poll : cep->deadline);
}

/* RTS: the peer's FIN or reset, or siw_cm_close(cep, false). */
static void siw_cep_rts(struct siw_cep *cep, unsigned long ev)
{
	int st = inet_sk_state_load(cep->sock->sk);

	if (st == TCP_CLOSE) {
		siw_dbg(cep->sdev, "%pISpc reset the connection\n",
			&cep->raddr);
		siw_cep_report(cep, cep->cm_id, IW_CM_EVENT_DISCONNECT,
			       -ECONNRESET, false);
		siw_cep_teardown(cep, true);
		return;
	}
	if (st == TCP_CLOSE_WAIT)
		siw_cep_report(cep, cep->cm_id, IW_CM_EVENT_DISCONNECT, 0,
			       false);
	else if (!(ev & BIT(SIW_EV_CLOSE)))
		return;
	cep->state = SIW_CEP_CLOSING;
	siw_cep_deadline(cep, SIW_CM_CLOSE_MS);
	siw_cep_closing(cep);
}

static void siw_cep_work(struct work_struct *work)
{
	struct siw_cep *cep = container_of(work, struct siw_cep, work);
	unsigned long ev;

	mutex_lock(&cep->mutex);
	ev = xchg(&cep->events, 0);
	if ((ev & BIT(SIW_EV_ABORT)) && cep->state != SIW_CEP_DEAD) {
		if (cep->listener)
			siw_dbg(cep->sdev, "listener on %pISpc aborted\n",
				&cep->laddr);
		else
			siw_dbg(cep->sdev, "connection %pISpc - %pISpc aborted in state %d\n",
				&cep->laddr, &cep->raddr, cep->state);
		siw_cep_teardown(cep, true);
		goto out;
	}
	switch (cep->state) {
	case SIW_CEP_LISTEN:
		siw_listen_accept(cep);
		break;
	case SIW_CEP_CONNECTING:
		siw_active_connecting(cep);
		break;
	case SIW_CEP_MPA_REP:
		siw_active_reply(cep);
		break;
	case SIW_CEP_MPA_REQ:
		siw_passive_request(cep);
		break;
	case SIW_CEP_ANSWER:
		siw_passive_waiting(cep);
		break;
	case SIW_CEP_RTS:
		siw_cep_rts(cep, ev);
		break;
	case SIW_CEP_CLOSING:
		siw_cep_closing(cep);
		break;
	case SIW_CEP_NEW:
	case SIW_CEP_DEAD:
		break;
	}
out:
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
}

/* ---- iw_cm ops: connections ---------------------------------------------- */

/**
 * siw_connect() - ask a peer for a connection (iw_connect)
 * @id: the ID; its m_local_addr is bound (port 0: any), m_remote_addr is
 *	connected to
 * @param: the QP (qpn), the private data of the MPA request, our READ
 *	depths (ord outbound, ird inbound)
 *
 * Starts a non-blocking TCP connect.  The outcome comes as one
 * CONNECT_REPLY: 0 with the reply's private data and the responder's
 * depths; -ECONNREFUSED (TCP refused, or an MPA reject, with its private
 * data); -ETIMEDOUT (no TCP connection or no MPA reply within
 * SIW_CM_TIMEOUT_MS each); -ENETUNREACH or -EHOSTUNREACH; -ECONNRESET for
 * a bad or unusable reply; or the QP's refusal to start.  The addresses
 * of the event are those of the socket.
 *
 * Context: process context.
 * Return: 0 when the connect is under way (and the ID held until its last
 * event), else a negative errno and no event.
 */
int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	int alen = siw_addr_len(&id->m_remote_addr);
	u8 rev = READ_ONCE(mpa_rev);
	struct siw_mpa_v2 v2;
	struct siw_cep *cep;
	struct socket *sock;
	int rc;

	if (!alen || id->m_local_addr.ss_family != id->m_remote_addr.ss_family) {
		siw_dbg(sdev, "connect: address families %u to %u\n",
			id->m_local_addr.ss_family, id->m_remote_addr.ss_family);
		return -EINVAL;
	}
	rc = siw_cm_check_param(sdev, param, rev == SIW_MPA_REV2);
	if (rc)
		return rc;
	cep = siw_cep_new(sdev);
	if (!cep)
		return -ENOMEM;
	siw_cep_get(cep);
	mutex_lock(&cep->mutex);
	cep->laddr = id->m_local_addr;
	cep->raddr = id->m_remote_addr;
	cep->qp = siw_qp_lookup(sdev, param->qpn);
	if (!cep->qp || siw_qp_setup(cep->qp, cep, false)) {
		siw_dbg(sdev, "connect: no QP %u, or it is in ERR\n",
			param->qpn);
		rc = -EINVAL;
		goto fail;
	}
	cep->rev = rev;
	cep->req_flags = READ_ONCE(mpa_crc) ? SIW_MPA_F_CRC : 0;
	cep->ird = param->ird;
	cep->ord = param->ord;
	siw_cm_v2_offer(&v2, cep->ird, cep->ord);
	cep->out_len = siw_mpa_build(cep->buf, false, cep->req_flags, rev,
				     rev == SIW_MPA_REV2 ? &v2 : NULL,
				     param->private_data,
				     param->private_data_len);
	rc = sock_create_kern(dev_net(sdev->netdev), id->m_remote_addr.ss_family,
			      SOCK_STREAM, IPPROTO_TCP, &sock);
	if (rc) {
		siw_dbg(sdev, "connect: no socket: %d\n", rc);
		goto fail;
	}
	sock_set_reuseaddr(sock->sk);
	tcp_sock_set_nodelay(sock->sk);
	siw_cep_attach(cep, sock, false);
	rc = kernel_bind(sock, (struct sockaddr *)&id->m_local_addr, alen);
	if (rc) {
		siw_dbg(sdev, "connect: bind to %pISpc failed: %d\n",
			&id->m_local_addr, rc);
		goto fail;
	}
	cep->state = SIW_CEP_CONNECTING;
	siw_cep_deadline(cep, SIW_CM_TIMEOUT_MS);
	rc = kernel_connect(sock, (struct sockaddr *)&id->m_remote_addr, alen,
			    O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		siw_dbg(sdev, "connect to %pISpc failed: %d\n",
			&id->m_remote_addr, rc);
		goto fail;
	}
	id->add_ref(id);
	cep->cm_id = id;
	siw_cep_publish(cep);
	rc = 0;
	goto out;
fail:
	siw_cep_teardown(cep, true);
out:
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
	return rc;
}

/* The endpoint of @id's request, with the xarray's reference, if unanswered */
static struct siw_cep *siw_cep_claim(struct iw_cm_id *id)
{
	unsigned long cookie = (unsigned long)id->provider_data;
	struct siw_cep *cep;

	xa_lock(&siw_cm_answers);
	cep = xa_load(&siw_cm_answers, cookie);
	if (cep && cep->sdev == to_siw_dev(id->device))
		__xa_erase(&siw_cm_answers, cookie);
	else
		cep = NULL;
	xa_unlock(&siw_cm_answers);
	return cep;
}

/**
 * siw_accept() - accept the request of a CONNECT_REQUEST (iw_accept)
 * @id: the ID of the request; its provider_data is the event's
 * @param: the QP (qpn), the private data of the MPA reply, our READ depths
 *
 * Sends the MPA reply (CRC if either end asked for it, the request's
 * revision, and if the request had the revision 2 block, ours: our depths
 * and the RTR message chosen), starts
 * the QP and reports ESTABLISHED.  On failure the connection is reset.
 *
 * Context: process context.
 * Return: 0, and the ID is held until CLOSE; -ECONNRESET when the
 * connection is gone; -EINVAL for a missing QP or parameters beyond the
 * device's; a send error or the QP's refusal to start.
 */
int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct siw_conn_params conn;
	struct siw_mpa_v2 v2;
	struct siw_cep *cep;
	unsigned int len;
	int rc;

	cep = siw_cep_claim(id);
	if (!cep) {
		siw_dbg(sdev, "accept: the connection is gone\n");
		return -ECONNRESET;
	}
	mutex_lock(&cep->mutex);
	cep->cookie = 0;
	if (cep->state != SIW_CEP_ANSWER) {
		siw_dbg(sdev, "accept: %pISpc closed\n", &cep->raddr);
		rc = -ECONNRESET;
		goto out;
	}
	rc = siw_cm_check_param(sdev, param, cep->peer.v2);
	if (rc)
		goto fail;
	cep->qp = siw_qp_lookup(sdev, param->qpn);
	if (!cep->qp) {
		siw_dbg(sdev, "accept: no QP %u\n", param->qpn);
		rc = -EINVAL;
		goto fail;
	}
	siw_passive_conn(cep, param, &conn, &v2);
	len = siw_mpa_build(cep->buf, true, conn.crc ? SIW_MPA_F_CRC : 0,
			    cep->peer.rev, cep->peer.v2 ? &v2 : NULL,
			    param->private_data, param->private_data_len);
	rc = siw_cep_send(cep, len);
	if (rc) {
		siw_dbg(sdev, "MPA reply to %pISpc not sent: %d\n",
			&cep->raddr, rc);
		goto fail;
	}
	siw_cep_unlisten(cep);
	rc = siw_qp_start(cep->qp, cep, cep->sock, &conn);
	if (rc) {
		siw_dbg(sdev, "QP %u not started for %pISpc: %d\n",
			param->qpn, &cep->raddr, rc);
		goto fail;
	}
	id->add_ref(id);
	cep->cm_id = id;
	siw_cep_bind(cep);
	siw_count(sdev, SIW_CNT_CONN_ESTABLISHED);
	siw_cep_report(cep, id, IW_CM_EVENT_ESTABLISHED, 0, false);
	goto out;
fail:
	siw_cep_teardown(cep, true);
out:
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
	return rc;
}

/**
 * siw_reject() - refuse the request of a CONNECT_REQUEST (iw_reject)
 * @id: the ID of the request; its provider_data is the event's
 * @pdata: private data for the initiator, or NULL
 * @pdata_len: its length
 *
 * Sends an MPA reply with R set (with a revision 2 block of no depth and
 * no RTR bit if the request had the block), then closes the connection in
 * order.
 *
 * Context: process context.
 * Return: 0; -ECONNRESET when the connection is gone; a send error (the
 * connection is then reset).
 */
int siw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct siw_cep *cep;
	int rc;

	cep = siw_cep_claim(id);
	if (!cep) {
		siw_dbg(sdev, "reject: the connection is gone\n");
		return -ECONNRESET;
	}
	mutex_lock(&cep->mutex);
	cep->cookie = 0;
	if (cep->state == SIW_CEP_ANSWER) {
		rc = siw_cep_reject(cep, cep->peer.rev, pdata, pdata_len);
	} else {
		siw_dbg(sdev, "reject: %pISpc closed\n", &cep->raddr);
		rc = -ECONNRESET;
	}
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
	return rc;
}

/* ---- iw_cm ops: listeners -------------------------------------------------- */

/* Addresses a wildcard listener listens on */
struct siw_addrs {
	struct sockaddr_storage	*a;
	unsigned int		n;
	unsigned int		max;
};

static int siw_addrs_add(struct siw_addrs *s, const struct sockaddr_storage *ss,
			 gfp_t gfp)
{
	struct sockaddr_storage *a;

	if (s->n == s->max) {
		a = krealloc_array(s->a, s->max + 8, sizeof(*a), gfp);
		if (!a)
			return -ENOMEM;
		s->a = a;
		s->max += 8;
	}
	s->a[s->n++] = *ss;
	return 0;
}

static int siw_addrs_v4(struct net_device *ndev, __be16 port,
			struct siw_addrs *s)
{
	struct sockaddr_storage ss = { .ss_family = AF_INET };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int rc = 0;

	sin->sin_port = port;
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			sin->sin_addr.s_addr = ifa->ifa_local;
			rc = siw_addrs_add(s, &ss, GFP_ATOMIC);
			if (rc)
				break;
		}
	}
	rcu_read_unlock();
	return rc;
}

static int siw_addrs_v6(struct net_device *ndev, __be16 port,
			struct siw_addrs *s)
{
	struct sockaddr_storage ss = { .ss_family = AF_INET6 };
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct inet6_dev *idev = in6_dev_get(ndev);
	struct inet6_ifaddr *ifp;
	int rc = 0;

	if (!idev)
		return 0;
	sin6->sin6_port = port;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		sin6->sin6_addr = ifp->addr;
		sin6->sin6_scope_id =
			(ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL) ?
			ndev->ifindex : 0;
		rc = siw_addrs_add(s, &ss, GFP_ATOMIC);
		if (rc)
			break;
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
	return rc;
}

/*
 * The addresses of @ndev a wildcard @addr stands for: IPv4 ones for
 * AF_INET, IPv6 ones for AF_INET6 and IPv4 ones too when @dual, each with
 * the port of @addr.
 */
static int siw_addrs_of(struct net_device *ndev,
			const struct sockaddr_storage *addr, bool dual,
			struct siw_addrs *s)
{
	__be16 port = siw_addr_port(addr);
	int rc = 0;

	if (addr->ss_family == AF_INET || dual)
		rc = siw_addrs_v4(ndev, port, s);
	if (!rc && addr->ss_family == AF_INET6)
		rc = siw_addrs_v6(ndev, port, s);
	return rc;
}

/* Open one listening endpoint of @listen on @addr. */
static int siw_listen_on(struct siw_device *sdev, struct siw_listen *listen,
			 const struct sockaddr_storage *addr)
{
	struct siw_cep *cep = siw_cep_new(sdev);
	struct socket *sock;
	int rc;

	if (!cep)
		return -ENOMEM;
	siw_cep_get(cep);
	mutex_lock(&cep->mutex);
	cep->laddr = *addr;
	cep->listener = true;
	rc = sock_create_kern(dev_net(sdev->netdev), addr->ss_family,
			      SOCK_STREAM, IPPROTO_TCP, &sock);
	if (rc) {
		siw_dbg(sdev, "listen: no socket: %d\n", rc);
		goto fail;
	}
	sock_set_reuseaddr(sock->sk);
	/* A new IPv6 address is usable before its DAD is over */
	ip_sock_set_freebind(sock->sk);
	siw_cep_attach(cep, sock, true);
	rc = kernel_bind(sock, (struct sockaddr *)addr, siw_addr_len(addr));
	if (!rc)
		rc = kernel_listen(sock, listen->backlog);
	if (rc) {
		siw_dbg(sdev, "listen on %pISpc failed: %d\n", addr, rc);
		goto fail;
	}
	kref_get(&listen->ref);
	cep->listen = listen;
	spin_lock(&listen->lock);
	list_add_tail(&cep->listen_entry, &listen->socks);
	spin_unlock(&listen->lock);
	cep->state = SIW_CEP_LISTEN;
	siw_cep_publish(cep);
	goto out;
fail:
	siw_cep_teardown(cep, false);
out:
	mutex_unlock(&cep->mutex);
	siw_cep_put(cep);
	return rc;
}

/*
 * Stop @listen: no request is reported to its ID once this returns; those
 * not reported yet are reset, those reported wait for their answer; the
 * listening sockets are closed now (the port is free again).  Drops the
 * ID and the owner's reference.
 */
static void siw_listen_stop(struct siw_listen *listen)
{
	struct siw_cep *cep;
	struct iw_cm_id *id;

	spin_lock(&listen->lock);
	id = listen->cm_id;
	listen->cm_id = NULL;
	list_for_each_entry(cep, &listen->waiting, listen_entry)
		siw_cep_event(cep, SIW_EV_ABORT);
	spin_unlock(&listen->lock);
	for (;;) {
		spin_lock(&listen->lock);
		cep = list_first_entry_or_null(&listen->socks, struct siw_cep,
					       listen_entry);
		if (cep) {
			list_del_init(&cep->listen_entry);
			siw_cep_get(cep);
		}
		spin_unlock(&listen->lock);
		if (!cep)
			break;
		mutex_lock(&cep->mutex);
		siw_cep_teardown(cep, false);
		mutex_unlock(&cep->mutex);
		siw_cep_put(cep);
	}
	id->rem_ref(id);
	kref_put(&listen->ref, siw_listen_free);
}

/**
 * siw_create_listen() - listen for connections (iw_create_listen)
 * @id: the ID; m_local_addr is the address and port.  A wildcard address
 *	listens on each address the device's netdev has now (IPv4 and, for
 *	AF_INET6 without afonly, IPv4 too), so that every siw device of a
 *	namespace can listen on the same port.
 * @backlog: connections accepted and not answered by the ULP at most;
 *	further ones are reset at once
 *
 * Each checked MPA request is reported to @id as CONNECT_REQUEST, with
 * the request's private data (without the revision 2 block) and the
 * initiator's depths (SIW_DEF_IRD/ORD in revision 1).
 *
 * Context: process context.
 * Return: 0, and the ID is held until siw_destroy_listen(); -EINVAL for
 * an address without port or of another family; a socket error.
 */
int siw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct sockaddr_storage *addr = &id->m_local_addr;
	struct siw_addrs addrs = {};
	struct siw_listen *listen;
	unsigned int i;
	int rc = 0;

	if (!siw_addr_len(addr) || !siw_addr_port(addr)) {
		siw_dbg(sdev, "listen: family %u or port 0 refused\n",
			addr->ss_family);
		return -EINVAL;
	}
	listen = kzalloc(sizeof(*listen), GFP_KERNEL);
	if (!listen)
		return -ENOMEM;
	kref_init(&listen->ref);
	spin_lock_init(&listen->lock);
	INIT_LIST_HEAD(&listen->socks);
	INIT_LIST_HEAD(&listen->waiting);
	listen->backlog = max(backlog, 1);
	id->add_ref(id);
	listen->cm_id = id;

	if (siw_addr_any(addr))
		rc = siw_addrs_of(sdev->netdev, addr, !id->afonly, &addrs);
	else
		rc = siw_addrs_add(&addrs, addr, GFP_KERNEL);
	if (rc)
		siw_dbg(sdev, "listen: no memory for the addresses\n");
	for (i = 0; !rc && i < addrs.n; i++)
		rc = siw_listen_on(sdev, listen, &addrs.a[i]);
	kfree(addrs.a);
	if (rc) {
		siw_listen_stop(listen);
		return rc;
	}
	if (!addrs.n)
		siw_dbg(sdev, "listen on %pISpc: the netdev has no address\n",
			addr);
	id->provider_data = listen;
	return 0;
}

/**
 * siw_destroy_listen() - stop listening (iw_destroy_listen)
 * @id: the ID of siw_create_listen()
 *
 * Closes the listening sockets and resets the connections whose request
 * was not reported yet; requests already reported stay until answered.
 * No request is reported to @id after this returns, and @id is let go.
 *
 * Context: process context.
 * Return: 0.
 */
int siw_destroy_listen(struct iw_cm_id *id)
{
	siw_listen_stop(id->provider_data);
	id->provider_data = NULL;
	return 0;
}

/* ---- the rest of the driver --------------------------------------------- */

/**
 * siw_cm_close() - end a QP's connection
 * @cep: the QP's endpoint (qp->cep)
 * @abrupt: reset the connection; else shut our side down, wait (at most
 *	SIW_CM_CLOSE_MS) for the peer's FIN and for the QP to read all the
 *	peer sent, then release it
 *
 * The CM's work then calls siw_qp_conn_lost(), releases the socket and
 * reports CLOSE.  Calls after the first change nothing, except that an
 * abrupt one cuts a graceful close short.
 *
 * Context: any; the QP's state_lock may be held.  Takes no lock, does not
 * sleep, does not call into the QP.
 */
void siw_cm_close(struct siw_cep *cep, bool abrupt)
{
	siw_cep_event(cep, abrupt ? SIW_EV_ABORT : SIW_EV_CLOSE);
}

/**
 * siw_cm_dev_down() - reset every connection and listening socket of a
 *	device
 * @sdev: the device
 *
 * Connections being set up end with CONNECT_REPLY -ECONNABORTED, those up
 * with CLOSE; listeners stop taking connections (their IDs stay until
 * siw_destroy_listen()).  The work does this shortly after; this does not
 * wait for it.
 *
 * Context: process context; RTNL may be held.
 */
void siw_cm_dev_down(struct siw_device *sdev)
{
	struct siw_cep *cep;

	spin_lock(&sdev->cep_lock);
	list_for_each_entry(cep, &sdev->ceps, dev_entry)
		siw_cep_event(cep, SIW_EV_ABORT);
	spin_unlock(&sdev->cep_lock);
}

/**
 * siw_cm_init() - set up the connection manager
 *
 * Context: module load.
 * Return: 0, -ENOMEM, or the error of registering its per-namespace
 * state.
 */
int siw_cm_init(void)
{
	int rc;

	siw_cm_wq = alloc_workqueue("siw_cm", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!siw_cm_wq)
		return -ENOMEM;
	rc = register_pernet_subsys(&siw_cm_net_ops);
	if (rc) {
		pr_debug("siw: no per-namespace state: %d\n", rc);
		destroy_workqueue(siw_cm_wq);
	}
	return rc;
}

/**
 * siw_cm_exit() - wait for the last endpoint and free the work queue
 *
 * Context: module unload, after every device went through
 * siw_cm_dev_down() and iw_cm let go of its IDs; sleeps until the closes
 * under way are over.
 */
void siw_cm_exit(void)
{
	wait_event(siw_cm_idle, !atomic_read(&siw_cm_ceps));
	unregister_pernet_subsys(&siw_cm_net_ops);
	destroy_workqueue(siw_cm_wq);
}
