// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Connection requests (REQ) and service ID resolution requests (SIDR_REQ)
 * coming in through the listeners' ib_cm listens.  Each is checked
 * before anyone sees it: the RDMA CM header, the peer's address, the
 * netdev the request arrived on (up, and the route back to the peer
 * leaves through it), then the listener is looked up in that netdev's
 * namespace by port space, port and address.  A request that fails is
 * refused by ib_cm (REJ "consumer defined", SIDR_REP "rejected") and
 * never reaches an owner.
 */
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <rdma/ib_cache.h>
#include "core_priv.h"
#include "cma_hdr.h"
#include "cma_priv.h"

/* One request, as the checks find it. */
struct cma_req {
	struct ib_device	*device;	/* it came in on */
	const void		*data;		/* private data, header first */
	u8			data_len;
	enum ib_qp_type		qp_type;
	u64			sid;
	const struct ib_gid_attr *sgid_attr;
	struct sockaddr_storage	local;
	struct sockaddr_storage	remote;
	struct net_device	*ndev;		/* held */
};

static void cma_sockaddr(struct sockaddr_storage *ss, u8 ipver,
			 const u8 *addr, u16 port, int ifindex)
{
	memset(ss, 0, sizeof(*ss));
	if (ipver == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, addr + 12, 4);
		s4->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, addr, 16);
		s6->sin6_port = htons(port);
		if (ipv6_addr_type(&s6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			s6->sin6_scope_id = ifindex;
	}
}

/* Does the route from our address back to the peer leave through @ndev? */
static bool cma_route_back(struct net_device *ndev,
			   const struct sockaddr *local,
			   const struct sockaddr *remote)
{
	struct net *net = dev_net(ndev);
	struct net_device *out;
	bool ok;

	if (local->sa_family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = ((const struct sockaddr_in *)remote)->sin_addr.s_addr,
			.saddr = ((const struct sockaddr_in *)local)->sin_addr.s_addr,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return false;
		out = rt->dst.dev;
		ok = out == ndev || (out->flags & IFF_LOOPBACK);
		ip_rt_put(rt);
		return ok;
	}
	if (IS_ENABLED(CONFIG_IPV6)) {
		struct flowi6 fl6 = {
			.daddr = ((const struct sockaddr_in6 *)remote)->sin6_addr,
			.saddr = ((const struct sockaddr_in6 *)local)->sin6_addr,
			.flowi6_oif = ((const struct sockaddr_in6 *)remote)->sin6_scope_id,
		};
		struct dst_entry *dst = ip6_route_output(net, NULL, &fl6);

		ok = !dst->error &&
		     (dst->dev == ndev || (dst->dev->flags & IFF_LOOPBACK));
		dst_release(dst);
		return ok;
	}
	return false;
}

/* The checks of a request; on success @r->ndev is held. */
static int cma_req_check(struct ib_cm_id *cm_id, const struct ib_cm_event *ev,
			 struct cma_req *r)
{
	struct device *dev = &cm_id->device->dev;
	struct cma_hdr_addrs h;
	struct net_device *ndev;

	r->device = cm_id->device;
	if (ev->event == IB_CM_REQ_RECEIVED) {
		r->qp_type = ev->param.req_rcvd.qp_type;
		r->sgid_attr = ev->param.req_rcvd.ppath_sgid_attr;
		r->sid = be64_to_cpu(cm_id->service_id);
		r->data_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
	} else {
		r->qp_type = IB_QPT_UD;
		r->sgid_attr = ev->param.sidr_req_rcvd.sgid_attr;
		r->sid = be64_to_cpu(ev->param.sidr_req_rcvd.service_id);
		r->data_len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
	}
	r->data = ev->private_data;
	if (!r->sgid_attr || !r->data ||
	    cma_hdr_get(r->data, r->data_len, &h)) {
		dev_dbg(dev, "rdma_cm: request without a valid RDMA CM header\n");
		return -EINVAL;
	}
	if (!cma_hdr_remote_ok(h.ipver, h.src)) {
		dev_dbg(dev, "rdma_cm: request from an address nobody can answer\n");
		return -EINVAL;
	}
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(r->sgid_attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	if (!ndev) {
		dev_dbg(dev, "rdma_cm: request on a GID without a netdev\n");
		return -ENODEV;
	}
	cma_sockaddr(&r->local, h.ipver, h.dst, cma_sid_port(r->sid),
		     ndev->ifindex);
	cma_sockaddr(&r->remote, h.ipver, h.src, h.sport, ndev->ifindex);
	if (!netif_running(ndev) ||
	    !cma_route_back(ndev, (struct sockaddr *)&r->local,
			    (struct sockaddr *)&r->remote)) {
		dev_dbg(dev, "rdma_cm: request for %pISpc from %pISpc: %s down or not the way back\n",
			&r->local, &r->remote, netdev_name(ndev));
		dev_put(ndev);
		return -EHOSTUNREACH;
	}
	r->ndev = ndev;
	return 0;
}

/*
 * The new ID of a request: attached to the port of the request's device
 * that has the local address, in state CONNECT, its handler_mutex held.
 */
static struct rdma_id_private *cma_new_conn(struct rdma_id_private *l,
					    const struct ib_cm_event *ev,
					    struct cma_req *r)
{
	struct rdma_dev_addr *da;
	struct rdma_id_private *c;
	int ret;

	c = cma_conn_alloc(l, r->qp_type);
	if (!c)
		return ERR_PTR(-ENOMEM);
	da = &c->id.route.addr.dev_addr;
	memcpy(cma_src(c), &r->local, sizeof(r->local));
	memcpy(cma_dst(c), &r->remote, sizeof(r->remote));
	rdma_copy_src_l2_addr(da, r->ndev);
	if (r->qp_type != IB_QPT_UD) {
		c->id.route.path_rec = kmemdup(ev->param.req_rcvd.primary_path,
					       sizeof(struct sa_path_rec),
					       GFP_KERNEL);
		if (!c->id.route.path_rec) {
			ret = -ENOMEM;
			goto err;
		}
		c->id.route.num_pri_alt_paths = 1;
		if (sa_path_is_roce(c->id.route.path_rec))
			memcpy(da->dst_dev_addr,
			       sa_path_get_dmac(c->id.route.path_rec), ETH_ALEN);
	}
	ret = cma_attach_by_addr(c, r->ndev, cma_src(c), r->device);
	if (!ret)
		return c;
err:
	cma_conn_free(c);
	return ERR_PTR(ret);
}

static void cma_req_event(struct rdma_cm_event *rev,
			  const struct ib_cm_event *ev, struct cma_req *r)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;

	rev->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	if (r->qp_type == IB_QPT_UD) {
		rev->param.ud.private_data = r->data + CMA_HDR_LEN;
		rev->param.ud.private_data_len = r->data_len - CMA_HDR_LEN;
		return;
	}
	rev->param.conn = (struct rdma_conn_param) {
		.private_data = r->data + CMA_HDR_LEN,
		.private_data_len = r->data_len - CMA_HDR_LEN,
		.responder_resources = req->responder_resources,
		.initiator_depth = req->initiator_depth,
		.flow_control = req->flow_control,
		.retry_count = req->retry_count,
		.rnr_retry_count = req->rnr_retry_count,
		.srq = req->srq,
		.qp_num = req->remote_qpn,
	};
	rev->ece = req->ece;
}

/**
 * cma_req_handler() - a REQ or SIDR_REQ for one of the listeners
 * @cm_id: the new ib_cm ID of the request (listener's handler, no context)
 * @ev: IB_CM_REQ_RECEIVED or IB_CM_SIDR_REQ_RECEIVED
 *
 * Checks the request, finds its listener and gives the listener's handler
 * a CONNECT_REQUEST on a new ID that owns @cm_id from then on.  An RC
 * request the handler neither accepted nor rejected gets the deferred MRA,
 * sent when the peer repeats its REQ.
 *
 * Return: 0, or non-zero to have ib_cm refuse the request and destroy
 * @cm_id.
 */
int cma_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct rdma_id_private *l, *c;
	struct rdma_cm_event rev = {};
	struct cma_req r = {};
	int ret;

	if (ev->event != IB_CM_REQ_RECEIVED &&
	    ev->event != IB_CM_SIDR_REQ_RECEIVED)
		return -EINVAL;
	ret = cma_req_check(cm_id, ev, &r);
	if (ret)
		return ret;
	l = cma_find_listener(dev_net(r.ndev), cma_sid_ps(r.sid),
			      cma_sid_port(r.sid), cm_id->device,
			      (struct sockaddr *)&r.local, r.ndev->ifindex,
			      r.qp_type);
	if (!l) {
		dev_dbg(&cm_id->device->dev, "rdma_cm: no listener for %pISpc (service ID %#llx)\n",
			&r.local, r.sid);
		ret = -ECONNREFUSED;
		goto out_dev;
	}
	mutex_lock(&l->handler_mutex);
	if (cma_state(l) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out_listener;
	}
	c = cma_new_conn(l, ev, &r);
	if (IS_ERR(c)) {
		ret = PTR_ERR(c);
		goto out_listener;
	}
	c->cm_id = cm_id;
	cm_id->context = c;
	cm_id->cm_handler = cma_ib_handler;
	cma_req_event(&rev, ev, &r);
	ret = cma_deliver(c, &rev);
	if (ret) {
		c->cm_id = NULL;	/* ib_cm destroys it on our return */
		cma_destroy_unlock(c);
		goto out_listener;
	}
	if (r.qp_type != IB_QPT_UD && !c->accepted &&
	    cma_state(c) == RDMA_CM_CONNECT)
		ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING | IB_CM_MRA_FLAG_DELAY,
			       NULL, 0);
	mutex_unlock(&c->handler_mutex);

out_listener:
	mutex_unlock(&l->handler_mutex);
	cma_put(l);
out_dev:
	dev_put(r.ndev);
	return ret;
}
