// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the RDMA core's device model and address handles, run on
 * rdma_mock devices: registration and names, clients, registration
 * references, events, the RoCE GID table (filled from a netdev this module
 * creates and addresses it adds), sysfs, PDs and AHs.
 *
 * Every case creates what it needs and removes it again, so the module
 * unloads cleanly whatever the outcome.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/fs.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rdma_ah_kt.h"
#include "rdma_ktap.h"
#include "rdma_mock.h"
#include "rdma_mock_fx.h"

#define CT_WAIT_MS	3000
/* Default IPv4 TTL and IPv6 hop limit of a fresh namespace. */
#define CT_ROUTE_HOP_LIMIT	64

static struct net_device *ct_ndev;

static const u8 ct_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x09, 0x00, 0x01 };
static const u8 ct_peer_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x09, 0x00, 0x02 };

/* 10.9.0.1/24 and fd00:9::1/64 on the netdev; .2 is the "peer". */
#define CT_ADDR4	htonl(0x0a090001)
#define CT_PEER4	htonl(0x0a090002)
static const struct in6_addr ct_addr6 = {
	{ { 0xfd, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } } };
static const struct in6_addr ct_peer6 = {
	{ { 0xfd, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 } } };

/* ---- GID helpers ------------------------------------------------------- */

static void gid_default(union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	addrconf_addr_eui48(&gid->raw[8], ct_mac);
}

/* ---- addresses on the test netdev -------------------------------------- */

static bool addr4(struct rdma_ktap_ctx *ctx, bool add)
{
	int ret = rdma_mock_addr4(ct_ndev, add, CT_ADDR4, 24);

	return RDMA_KT_EXPECT(ctx, !ret, "%s 10.9.0.1/24: %d",
			      add ? "adding" : "removing", ret);
}

static bool addr6(struct rdma_ktap_ctx *ctx, bool add)
{
	int ret = rdma_mock_addr6(ct_ndev, add, &ct_addr6, 64);

	return RDMA_KT_EXPECT(ctx, !ret, "%s fd00:9::1/64: %d",
			      add ? "adding" : "removing", ret);
}

/* Remove whatever a case may have left, ignoring "not there". */
static void addr_cleanup(void)
{
	rdma_mock_addr4(ct_ndev, false, CT_ADDR4, 24);
	rdma_mock_addr6(ct_ndev, false, &ct_addr6, 64);
	rdma_mock_neigh4(ct_ndev, false, CT_PEER4, NULL);
	rdma_mock_neigh6(ct_ndev, false, &ct_peer6, NULL);
}

/* ---- a registered device on the netdev with a PD ----------------------- */

static bool fx_init(struct rdma_ktap_ctx *ctx, struct rdma_mock_fx *fx,
		    const struct rdma_mock_opts *opts)
{
	return rdma_mock_fx_init(ctx, fx, ct_ndev, opts, CT_WAIT_MS);
}

static void ah_attr_init(struct ib_device *dev, struct rdma_ah_attr *attr,
			 u8 sgid_index, const union ib_gid *dgid)
{
	union ib_gid d = *dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(dev, 1);
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, 3);
	rdma_ah_set_static_rate(attr, IB_RATE_10_GBPS);
	rdma_ah_set_grh(attr, &d, 0x12345, sgid_index, 64, 0x20);
	memcpy(attr->roce.dmac, ct_peer_mac, ETH_ALEN);
}

/* ---- device model ------------------------------------------------------ */

static void dev_register_names(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *a, *b = NULL, *c = NULL;
	struct ib_port_attr pattr;
	struct ib_device *got;
	char fw[IB_FW_VERSION_NAME_MAX] = "";
	unsigned int n;
	char tail;
	u16 pkey = 0;
	int ret;

	a = rdma_mock_alloc(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a), "alloc: %ld", PTR_ERR(a)))
		return;
	RDMA_KT_EXPECT(ctx, !ib_device_try_get(&a->ibdev),
		       "ib_device_try_get() succeeded before registration");
	ret = rdma_mock_register(a, "mock%d");
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	RDMA_KT_EXPECT(ctx, sscanf(a->ibdev.name, "mock%u%c", &n, &tail) == 1,
		       "name \"%s\" does not follow mock%%d", a->ibdev.name);
	RDMA_KT_EXPECT(ctx, !strcmp(a->ibdev.name, dev_name(&a->ibdev.dev)),
		       "name %s but sysfs device %s", a->ibdev.name,
		       dev_name(&a->ibdev.dev));
	got = ib_device_get_by_name(a->ibdev.name, RDMA_DRIVER_UNKNOWN);
	RDMA_KT_EXPECT(ctx, got == &a->ibdev, "get_by_name(%s) = %p",
		       a->ibdev.name, got);
	if (got)
		ib_device_put(got);

	/* The core filled the attributes and port data from the driver. */
	RDMA_KT_EQ(ctx, a->ibdev.attrs.max_qp, 64);
	RDMA_KT_EQ(ctx, a->ibdev.attrs.max_qp_wr, RDMA_MOCK_MAX_WR);
	RDMA_KT_EQ(ctx, rdma_start_port(&a->ibdev), 1);
	RDMA_KT_EQ(ctx, rdma_end_port(&a->ibdev), 1);
	RDMA_KT_EQ(ctx, rdma_port_get_link_layer(&a->ibdev, 1),
		   IB_LINK_LAYER_ETHERNET);
	RDMA_KT_EXPECT(ctx, rdma_protocol_roce(&a->ibdev, 1) &&
		       rdma_protocol_roce_udp_encap(&a->ibdev, 1) &&
		       rdma_cap_roce_gid_table(&a->ibdev, 1),
		       "port 1 is not RoCE v1+v2 with a core GID table");
	ret = ib_query_port(&a->ibdev, 1, &pattr);
	RDMA_KT_EQ(ctx, ret, 0);
	RDMA_KT_EQ(ctx, pattr.gid_tbl_len, RDMA_MOCK_GID_TBL_LEN);
	RDMA_KT_EQ(ctx, pattr.state, IB_PORT_DOWN);	/* no netdev */
	RDMA_KT_EQ(ctx, ib_query_port(&a->ibdev, 2, &pattr), -EINVAL);
	RDMA_KT_EQ(ctx, ib_query_pkey(&a->ibdev, 1, 0, &pkey), 0);
	RDMA_KT_EQ(ctx, pkey, 0xffff);
	ib_get_device_fw_str(&a->ibdev, fw);
	RDMA_KT_EXPECT(ctx, !strcmp(fw, "1.2.0"), "fw string \"%s\"", fw);

	/* The same template gives another name. */
	b = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(b), "second device: %ld", PTR_ERR(b))) {
		b = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, strcmp(a->ibdev.name, b->ibdev.name),
		       "two devices named %s", b->ibdev.name);
	RDMA_KT_EXPECT(ctx, a->ibdev.index != b->ibdev.index,
		       "two devices with index %u", b->ibdev.index);

	/* A name in use is refused, and the device can still be freed. */
	c = rdma_mock_alloc(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(c), "third device: %ld", PTR_ERR(c))) {
		c = NULL;
		goto out;
	}
	ret = rdma_mock_register(c, a->ibdev.name);
	RDMA_KT_EXPECT(ctx, ret == -EEXIST || ret == -ENFILE,
		       "registering a second %s: %d", a->ibdev.name, ret);
out:
	rdma_mock_destroy(c);
	rdma_mock_destroy(b);
	rdma_mock_destroy(a);
}

/* ---- clients ----------------------------------------------------------- */

#define CL_MAX_EVENTS	32

struct cl_event {
	char op;		/* a(dd), s(kipped add), r(emove), n (rename) */
	int client;
	struct ib_device *dev;
	void *data;
};

struct cl_data {
	struct ib_device *dev;
	int client;
};

static DEFINE_MUTEX(cl_lock);
static struct cl_event cl_events[CL_MAX_EVENTS];
static unsigned int cl_nevents;
static struct ib_device *cl_watch[4];
static struct ib_device *cl_b_skip;

static bool cl_watched(struct ib_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cl_watch); i++)
		if (cl_watch[i] && cl_watch[i] == dev)
			return true;
	return false;
}

static void cl_reset(void)
{
	mutex_lock(&cl_lock);
	memset(cl_events, 0, sizeof(cl_events));
	cl_nevents = 0;
	memset(cl_watch, 0, sizeof(cl_watch));
	cl_b_skip = NULL;
	mutex_unlock(&cl_lock);
}

static void cl_log(char op, int client, struct ib_device *dev, void *data)
{
	mutex_lock(&cl_lock);
	if (cl_nevents < CL_MAX_EVENTS)
		cl_events[cl_nevents++] = (struct cl_event){
			.op = op, .client = client, .dev = dev, .data = data };
	mutex_unlock(&cl_lock);
}

static struct ib_client cl_a;
static struct ib_client cl_b;

static int cl_add(struct ib_client *client, int id, struct ib_device *dev)
{
	struct cl_data *d;

	if (!cl_watched(dev))
		return -EOPNOTSUPP;
	if (id == 1 && dev == cl_b_skip) {
		cl_log('s', id, dev, NULL);
		return -EOPNOTSUPP;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	d->client = id;
	ib_set_client_data(dev, client, d);
	cl_log('a', id, dev, d);
	return 0;
}

static void cl_remove(int id, struct ib_device *dev, void *data)
{
	cl_log('r', id, dev, data);
	kfree(data);
}

static int cl_a_add(struct ib_device *dev)
{
	return cl_add(&cl_a, 0, dev);
}

static void cl_a_remove(struct ib_device *dev, void *data)
{
	cl_remove(0, dev, data);
}

static void cl_a_rename(struct ib_device *dev, void *data)
{
	cl_log('n', 0, dev, data);
}

static int cl_b_add(struct ib_device *dev)
{
	return cl_add(&cl_b, 1, dev);
}

static void cl_b_remove(struct ib_device *dev, void *data)
{
	cl_remove(1, dev, data);
}

static struct ib_client cl_a = {
	.name = "rdma_core_test_a",
	.add = cl_a_add,
	.remove = cl_a_remove,
	.rename = cl_a_rename,
};

static struct ib_client cl_b = {
	.name = "rdma_core_test_b",
	.add = cl_b_add,
	.remove = cl_b_remove,
};

/* The data a client's add() stored for @dev, from the log. */
static void *cl_added_data(int client, struct ib_device *dev)
{
	unsigned int i;

	for (i = 0; i < cl_nevents; i++)
		if (cl_events[i].op == 'a' && cl_events[i].client == client &&
		    cl_events[i].dev == dev)
			return cl_events[i].data;
	return NULL;
}

/* Check log entry @i; a remove must hand back what add stored. */
static void cl_check(struct rdma_ktap_ctx *ctx, unsigned int i, char op,
		     int client, struct ib_device *dev, const char *dname)
{
	struct cl_event *e;

	mutex_lock(&cl_lock);
	if (!RDMA_KT_EXPECT(ctx, i < cl_nevents,
			    "event %u (%c client %d %s) missing, %u logged",
			    i, op, client, dname, cl_nevents))
		goto out;
	e = &cl_events[i];
	RDMA_KT_EXPECT(ctx, e->op == op && e->client == client && e->dev == dev,
		       "event %u is %c client %d dev %s, expected %c client %d %s",
		       i, e->op, e->client, e->dev ? e->dev->name : "?",
		       op, client, dname);
	if (op == 'r' || op == 'n')
		RDMA_KT_EXPECT(ctx, e->data && e->data == cl_added_data(client, dev),
			       "event %u: client data %p is not what add stored",
			       i, e->data);
out:
	mutex_unlock(&cl_lock);
}

static unsigned int cl_count(void)
{
	unsigned int n;

	mutex_lock(&cl_lock);
	n = cl_nevents;
	mutex_unlock(&cl_lock);
	return n;
}

static void clients_add_remove(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *a, *b, *c = NULL;
	struct cl_data *d;
	int ret;

	cl_reset();
	a = rdma_mock_alloc(NULL, NULL);
	b = rdma_mock_alloc(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a) && !IS_ERR(b), "alloc failed")) {
		if (!IS_ERR(a))
			rdma_mock_free(a);
		if (!IS_ERR(b))
			rdma_mock_free(b);
		return;
	}
	cl_watch[0] = &a->ibdev;
	cl_watch[1] = &b->ibdev;
	if (!RDMA_KT_EQ(ctx, rdma_mock_register(a, "mock%d"), 0) ||
	    !RDMA_KT_EQ(ctx, rdma_mock_register(b, "mock%d"), 0))
		goto out;

	/* A new client sees every registered device, in order. */
	ret = ib_register_client(&cl_a);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	cl_check(ctx, 0, 'a', 0, &a->ibdev, "A");
	cl_check(ctx, 1, 'a', 0, &b->ibdev, "B");
	d = ib_get_client_data(&a->ibdev, &cl_a);
	RDMA_KT_EXPECT(ctx, d && d->dev == &a->ibdev && d->client == 0,
		       "ib_get_client_data(A) = %p", d);

	/* A device registered later is added to the existing client. */
	c = rdma_mock_alloc(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(c), "alloc C: %ld", PTR_ERR(c))) {
		c = NULL;
		goto out_a;
	}
	cl_watch[2] = &c->ibdev;
	if (!RDMA_KT_EQ(ctx, rdma_mock_register(c, "mock%d"), 0))
		goto out_a;
	cl_check(ctx, 2, 'a', 0, &c->ibdev, "C");

	/* A client may decline a device: no remove() for it later. */
	cl_b_skip = &b->ibdev;
	ret = ib_register_client(&cl_b);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out_a;
	cl_check(ctx, 3, 'a', 1, &a->ibdev, "A");
	cl_check(ctx, 4, 's', 1, &b->ibdev, "B");
	cl_check(ctx, 5, 'a', 1, &c->ibdev, "C");
	RDMA_KT_EXPECT(ctx, !ib_get_client_data(&b->ibdev, &cl_b),
		       "client data for a declined device");

	/* Unregistering a device removes its clients, last one first. */
	rdma_mock_unregister(a);
	cl_check(ctx, 6, 'r', 1, &a->ibdev, "A");
	cl_check(ctx, 7, 'r', 0, &a->ibdev, "A");

	/* Unregistering a client removes it from the remaining devices. */
	ib_unregister_client(&cl_a);
	cl_check(ctx, 8, 'r', 0, &b->ibdev, "B");
	cl_check(ctx, 9, 'r', 0, &c->ibdev, "C");
	ib_unregister_client(&cl_b);
	cl_check(ctx, 10, 'r', 1, &c->ibdev, "C");
	RDMA_KT_EQ(ctx, cl_count(), 11);
	goto out;
out_a:
	ib_unregister_client(&cl_a);
out:
	rdma_mock_destroy(c);
	rdma_mock_destroy(b);
	rdma_mock_destroy(a);
	cl_reset();
}

/* ---- a client whose add() takes its time ----------------------------- */

/*
 * Work on the caller's stack run on system_unbound_wq; its completion is
 * completed for good, so that it may be waited for more than once.  Every
 * ct_async_start() is paired with a ct_async_end() before the frame goes.
 */
struct ct_async {
	struct work_struct work;
	struct completion done;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static void ct_async_fn(struct work_struct *work)
{
	struct ct_async *a = container_of(work, struct ct_async, work);

	a->ret = a->fn(a->arg);
	complete_all(&a->done);
}

static void ct_async_start(struct ct_async *a, int (*fn)(void *arg),
			   void *arg)
{
	INIT_WORK_ONSTACK(&a->work, ct_async_fn);
	init_completion(&a->done);
	a->fn = fn;
	a->arg = arg;
	queue_work(system_unbound_wq, &a->work);
}

/* Wait for @a's function, and for the worker to be done with @a. */
static void ct_async_end(struct ct_async *a)
{
	wait_for_completion(&a->done);
	flush_work(&a->work);
	destroy_work_on_stack(&a->work);
}

/*
 * cl_slow's add() sleeps on @hold until @go (or CT_WAIT_MS * 3), and
 * counts its calls for @hold and for @late; other devices it declines.
 */
static struct {
	struct ib_device *hold;
	struct ib_device *late;
	struct completion entered;
	struct completion go;
	atomic_t adds_hold;
	atomic_t adds_late;
} slow;

static int cl_slow_add(struct ib_device *dev)
{
	if (dev == slow.hold) {
		atomic_inc(&slow.adds_hold);
		complete(&slow.entered);
		wait_for_completion_timeout(&slow.go,
					    msecs_to_jiffies(3 * CT_WAIT_MS));
		return 0;
	}
	if (dev == slow.late) {
		atomic_inc(&slow.adds_late);
		return 0;
	}
	return -EOPNOTSUPP;
}

static void cl_slow_remove(struct ib_device *dev, void *data)
{
}

static struct ib_client cl_slow = {
	.name = "rdma_core_test_slow",
	.add = cl_slow_add,
	.remove = cl_slow_remove,
};

static int slow_register_client(void *arg)
{
	return ib_register_client(&cl_slow);
}

/* 1 if the device called @arg is found by name, else 0. */
static int slow_lookup(void *arg)
{
	struct ib_device *got = ib_device_get_by_name(arg, RDMA_DRIVER_UNKNOWN);

	if (!got)
		return 0;
	ib_device_put(got);
	return 1;
}

static int slow_register_late(void *arg)
{
	return rdma_mock_register(arg, "mock%d");
}

/*
 * While a client's add() sleeps inside ib_register_client(), readers of
 * the device registry (a lookup by name, as every netlink request makes)
 * go on; a device registered meanwhile gets the client's add() exactly
 * once, after the client's own walk.
 */
static void clients_slow_add(struct rdma_ktap_ctx *ctx)
{
	struct ct_async reg, look, reg_late;
	struct rdma_mock_dev *a, *late;
	char name[IB_DEVICE_NAME_MAX];

	a = rdma_mock_create(NULL, NULL);
	late = rdma_mock_alloc(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a) && !IS_ERR(late),
			    "creating the mock devices failed")) {
		if (!IS_ERR(late))
			rdma_mock_free(late);
		rdma_mock_destroy(a);
		return;
	}
	strscpy(name, a->ibdev.name, sizeof(name));
	slow.hold = &a->ibdev;
	slow.late = &late->ibdev;
	init_completion(&slow.entered);
	init_completion(&slow.go);
	atomic_set(&slow.adds_hold, 0);
	atomic_set(&slow.adds_late, 0);

	ct_async_start(&reg, slow_register_client, NULL);
	RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&slow.entered,
							msecs_to_jiffies(CT_WAIT_MS)),
		       "the client's add() for %s never ran", name);
	ct_async_start(&look, slow_lookup, name);
	RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&look.done,
							msecs_to_jiffies(CT_WAIT_MS)),
		       "looking %s up by name waited for a client's add()",
		       name);
	ct_async_start(&reg_late, slow_register_late, late);
	/* Let the registration get as far as it can while add() sleeps. */
	msleep(100);
	RDMA_KT_EQ(ctx, atomic_read(&slow.adds_late), 0);
	complete_all(&slow.go);

	ct_async_end(&reg);
	ct_async_end(&look);
	ct_async_end(&reg_late);
	RDMA_KT_EQ(ctx, reg.ret, 0);
	RDMA_KT_EQ(ctx, look.ret, 1);
	RDMA_KT_EQ(ctx, reg_late.ret, 0);
	RDMA_KT_EQ(ctx, atomic_read(&slow.adds_hold), 1);
	RDMA_KT_EQ(ctx, atomic_read(&slow.adds_late), 1);
	if (!reg.ret)
		ib_unregister_client(&cl_slow);
	rdma_mock_destroy(late);
	rdma_mock_destroy(a);
	slow.hold = NULL;
	slow.late = NULL;
}

static void dev_rename(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *a, *b;
	struct ib_device *got;
	char old[IB_DEVICE_NAME_MAX];
	int ret;

	cl_reset();
	a = rdma_mock_create(NULL, NULL);
	b = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a) && !IS_ERR(b), "create failed"))
		goto out;
	cl_watch[0] = &a->ibdev;
	if (!RDMA_KT_EQ(ctx, ib_register_client(&cl_a), 0))
		goto out;
	strscpy(old, a->ibdev.name, sizeof(old));

	RDMA_KT_EQ(ctx, ib_device_rename(&a->ibdev, b->ibdev.name), -EEXIST);
	RDMA_KT_EXPECT(ctx, !strcmp(a->ibdev.name, old),
		       "failed rename changed the name to %s", a->ibdev.name);
	RDMA_KT_EQ(ctx, ib_device_rename(&a->ibdev, old), 0);

	ret = ib_device_rename(&a->ibdev, "rdmatestren0");
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EXPECT(ctx, !strcmp(a->ibdev.name, "rdmatestren0") &&
			       !strcmp(dev_name(&a->ibdev.dev), "rdmatestren0"),
			       "renamed device is %s / %s", a->ibdev.name,
			       dev_name(&a->ibdev.dev));
		got = ib_device_get_by_name("rdmatestren0", RDMA_DRIVER_UNKNOWN);
		RDMA_KT_EXPECT(ctx, got == &a->ibdev, "new name not found");
		if (got)
			ib_device_put(got);
		got = ib_device_get_by_name(old, RDMA_DRIVER_UNKNOWN);
		RDMA_KT_EXPECT(ctx, !got, "old name %s still found", old);
		if (got)
			ib_device_put(got);
		cl_check(ctx, 1, 'n', 0, &a->ibdev, "A");
	}
	ib_unregister_client(&cl_a);
out:
	if (!IS_ERR(b))
		rdma_mock_destroy(b);
	if (!IS_ERR(a))
		rdma_mock_destroy(a);
	cl_reset();
}

struct unreg_work {
	struct work_struct work;
	struct rdma_mock_dev *md;
	struct completion done;
};

static void unreg_work_fn(struct work_struct *work)
{
	struct unreg_work *uw = container_of(work, struct unreg_work, work);

	rdma_mock_unregister(uw->md);
	complete(&uw->done);
}

static void dev_unregister_waits_for_refs(struct rdma_ktap_ctx *ctx)
{
	struct unreg_work uw;
	struct rdma_mock_dev *md;
	struct ib_device *got;
	char name[IB_DEVICE_NAME_MAX];

	md = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "create: %ld", PTR_ERR(md)))
		return;
	strscpy(name, md->ibdev.name, sizeof(name));
	if (!RDMA_KT_EXPECT(ctx, ib_device_try_get(&md->ibdev),
			    "ib_device_try_get() failed on a registered device")) {
		rdma_mock_destroy(md);
		return;
	}
	uw.md = md;
	init_completion(&uw.done);
	INIT_WORK_ONSTACK(&uw.work, unreg_work_fn);
	queue_work(system_unbound_wq, &uw.work);

	RDMA_KT_EXPECT(ctx, !wait_for_completion_timeout(&uw.done,
							 msecs_to_jiffies(300)),
		       "unregistration finished while a reference was held");
	ib_device_put(&md->ibdev);
	RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&uw.done,
							msecs_to_jiffies(5000)),
		       "unregistration still blocked after the last put");
	flush_work(&uw.work);
	destroy_work_on_stack(&uw.work);

	RDMA_KT_EXPECT(ctx, !ib_device_try_get(&md->ibdev),
		       "ib_device_try_get() succeeded after unregistration");
	got = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	RDMA_KT_EXPECT(ctx, !got, "unregistered %s still found by name", name);
	if (got)
		ib_device_put(got);
	rdma_mock_free(md);
}

/* A client whose add() builds verbs objects and whose remove() frees them. */
struct objs {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_ah *ah;
};

static atomic_t objs_removed;
static struct ib_client objs_client;

static int objs_add(struct ib_device *dev)
{
	struct ib_qp_init_attr qpa = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_ah_attr aha;
	union ib_gid dgid;
	struct objs *o;
	int ret;

	if (!cl_watched(dev))
		return -EOPNOTSUPP;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(o->pd)) {
		ret = PTR_ERR(o->pd);
		goto err_free;
	}
	o->cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(o->cq)) {
		ret = PTR_ERR(o->cq);
		goto err_pd;
	}
	qpa.send_cq = o->cq;
	qpa.recv_cq = o->cq;
	o->qp = ib_create_qp(o->pd, &qpa);
	if (IS_ERR(o->qp)) {
		ret = PTR_ERR(o->qp);
		goto err_cq;
	}
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	ah_attr_init(dev, &aha, 0, &dgid);
	o->ah = rdma_create_ah(o->pd, &aha, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(o->ah)) {
		ret = PTR_ERR(o->ah);
		goto err_qp;
	}
	ib_set_client_data(dev, &objs_client, o);
	return 0;

err_qp:
	ib_destroy_qp(o->qp);
err_cq:
	ib_free_cq(o->cq);
err_pd:
	ib_dealloc_pd(o->pd);
err_free:
	kfree(o);
	return ret;
}

static void objs_remove(struct ib_device *dev, void *data)
{
	struct objs *o = data;

	rdma_destroy_ah(o->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_destroy_qp(o->qp);
	ib_free_cq(o->cq);
	ib_dealloc_pd(o->pd);
	kfree(o);
	atomic_inc(&objs_removed);
}

static struct ib_client objs_client = {
	.name = "rdma_core_test_objs",
	.add = objs_add,
	.remove = objs_remove,
};

static void dev_unregister_with_objects(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *md;
	int ret;

	cl_reset();
	atomic_set(&objs_removed, 0);
	md = rdma_mock_create(ct_ndev, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "create: %ld", PTR_ERR(md)))
		return;
	if (!RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rdma_mock_gid_index_valid(&md->ibdev, 1, 0),
						    CT_WAIT_MS),
			    "default GID never appeared"))
		goto out;
	cl_watch[0] = &md->ibdev;
	ret = ib_register_client(&objs_client);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	RDMA_KT_EXPECT(ctx, ib_get_client_data(&md->ibdev, &objs_client),
		       "the client's add() did not build its objects");
	RDMA_KT_EQ(ctx, atomic_read(&md->qp_creates), 1);
	RDMA_KT_EQ(ctx, atomic_read(&md->ah_creates), 1);

	/* Unregistering with live objects: the client's remove frees them. */
	rdma_mock_unregister(md);
	RDMA_KT_EQ(ctx, atomic_read(&objs_removed), 1);
	RDMA_KT_EQ(ctx, atomic_read(&md->ah_destroys), 1);
	RDMA_KT_EQ(ctx, atomic_read(&md->qp_destroys), 1);
	RDMA_KT_EQ(ctx, atomic_read(&md->cq_destroys),
		   atomic_read(&md->cq_creates));
	RDMA_KT_EQ(ctx, atomic_read(&md->pd_deallocs),
		   atomic_read(&md->pd_allocs));
	ib_unregister_client(&objs_client);
	RDMA_KT_EQ(ctx, atomic_read(&objs_removed), 1);
out:
	rdma_mock_destroy(md);
	cl_reset();
}

struct ndev_work {
	struct work_struct work;
	struct net_device *ndev;
	struct completion done;
};

static void ndev_unregister_fn(struct work_struct *work)
{
	struct ndev_work *nw = container_of(work, struct ndev_work, work);

	unregister_netdev(nw->ndev);
	complete(&nw->done);
}

/*
 * The netdev under a registered device goes away: the core must let go
 * of it (unregister_netdev() waits for every reference) and drop the
 * GIDs built on it, while the ib_device stays usable.  The netdev is
 * unregistered from a work item so that a core that keeps its reference
 * fails the case instead of hanging it; unregistering the ib_device then
 * releases the netdev and the work item finishes.
 */
static void dev_netdev_unregister(struct rdma_ktap_ctx *ctx)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x09, 0x01, 0x01 };
	struct rdma_mock_dev *md = NULL;
	struct ib_port_attr pattr;
	struct net_device *ndev, *got;
	struct ndev_work nw;
	bool gone;

	ndev = rdma_mock_netdev_create("rdmagone%d", mac);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ndev), "netdev: %ld", PTR_ERR(ndev)))
		return;
	md = rdma_mock_create(ndev, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "create: %ld", PTR_ERR(md))) {
		rdma_mock_netdev_destroy(ndev);
		return;
	}
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rdma_mock_gid_index_valid(&md->ibdev, 1, 0),
					       CT_WAIT_MS),
		       "default GID never appeared");
	got = ib_device_get_netdev(&md->ibdev, 1);
	RDMA_KT_EXPECT(ctx, got == ndev, "port 1 netdev %p, expected %p", got,
		       ndev);
	dev_put(got);

	nw.ndev = ndev;
	init_completion(&nw.done);
	INIT_WORK_ONSTACK(&nw.work, ndev_unregister_fn);
	queue_work(system_unbound_wq, &nw.work);
	gone = wait_for_completion_timeout(&nw.done,
					   msecs_to_jiffies(2 * CT_WAIT_MS));
	if (RDMA_KT_EXPECT(ctx, gone,
			   "unregister_netdev() blocked: the core holds the netdev")) {
		got = ib_device_get_netdev(&md->ibdev, 1);
		RDMA_KT_EXPECT(ctx, !got, "port 1 still reports the netdev");
		dev_put(got);
		RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(!rdma_mock_gid_index_valid(&md->ibdev, 1, 0),
						       CT_WAIT_MS),
			       "default GID outlived its netdev");
		RDMA_KT_EQ(ctx, ib_query_port(&md->ibdev, 1, &pattr), 0);
		RDMA_KT_EQ(ctx, pattr.state, IB_PORT_DOWN);
		RDMA_KT_EQ(ctx, atomic_read(&md->gid_errors), 0);
	}
	rdma_mock_destroy(md);
	flush_work(&nw.work);
	destroy_work_on_stack(&nw.work);
	free_netdev(ndev);
}

/* ---- events ------------------------------------------------------------ */

/* What one event handler received, counted per event type. */
struct ev_rec {
	struct ib_event_handler h;
	atomic_t n[IB_EVENT_WQ_FATAL + 1];
	atomic_t bad;		/* another device, a bad port or type */
};

static void ev_handler(struct ib_event_handler *h, struct ib_event *ev)
{
	struct ev_rec *r = container_of(h, struct ev_rec, h);

	if (ev->device != h->device || ev->event > IB_EVENT_WQ_FATAL) {
		atomic_inc(&r->bad);
		return;
	}
	if ((ev->event == IB_EVENT_PORT_ERR ||
	     ev->event == IB_EVENT_PORT_ACTIVE ||
	     ev->event == IB_EVENT_GID_CHANGE) && ev->element.port_num != 1)
		atomic_inc(&r->bad);
	atomic_inc(&r->n[ev->event]);
}

static void ev_init(struct ev_rec *r, struct ib_device *dev)
{
	memset(r, 0, sizeof(*r));
	INIT_IB_EVENT_HANDLER(&r->h, dev, ev_handler);
	ib_register_event_handler(&r->h);
}

static int ev_count(struct ev_rec *r, enum ib_event_type type)
{
	return atomic_read(&r->n[type]);
}

static void events_dispatch(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *a, *b;
	struct ev_rec ra, rb;
	struct ib_event ev = {};
	unsigned long flags;

	a = rdma_mock_create(NULL, NULL);
	b = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a) && !IS_ERR(b), "create failed"))
		goto out;
	ev_init(&ra, &a->ibdev);
	ev_init(&rb, &b->ibdev);

	/* Dispatch may come from interrupt context: call it with IRQs off. */
	ev.device = &a->ibdev;
	ev.element.port_num = 1;
	ev.event = IB_EVENT_PORT_ERR;
	local_irq_save(flags);
	ib_dispatch_event(&ev);
	local_irq_restore(flags);

	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(ev_count(&ra, IB_EVENT_PORT_ERR),
					       CT_WAIT_MS),
		       "the handler never got the event");
	msleep(200);
	RDMA_KT_EQ(ctx, ev_count(&ra, IB_EVENT_PORT_ERR), 1);
	RDMA_KT_EQ(ctx, ev_count(&rb, IB_EVENT_PORT_ERR), 0);

	/* No more events once unregistered. */
	ib_unregister_event_handler(&ra.h);
	ev.event = IB_EVENT_SM_CHANGE;
	ib_dispatch_event(&ev);
	ev.device = &b->ibdev;
	ib_dispatch_event(&ev);
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(ev_count(&rb,
							IB_EVENT_SM_CHANGE),
					       CT_WAIT_MS),
		       "the other device's handler never got its event");
	msleep(200);
	RDMA_KT_EQ(ctx, ev_count(&ra, IB_EVENT_SM_CHANGE), 0);
	RDMA_KT_EQ(ctx, ev_count(&rb, IB_EVENT_SM_CHANGE), 1);
	RDMA_KT_EQ(ctx, atomic_read(&ra.bad), 0);
	RDMA_KT_EQ(ctx, atomic_read(&rb.bad), 0);
	ib_unregister_event_handler(&rb.h);
out:
	rdma_mock_destroy(b);
	rdma_mock_destroy(a);
}

static void events_gid_change(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_fx fx;
	struct ev_rec r;
	bool reg = false;
	int before;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	ev_init(&r, fx.dev);
	reg = true;
	msleep(100);	/* let events of the registration itself pass */
	before = ev_count(&r, IB_EVENT_GID_CHANGE);
	if (!addr4(ctx, true))
		goto out;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(ev_count(&r, IB_EVENT_GID_CHANGE) >
					       before, CT_WAIT_MS),
		       "no IB_EVENT_GID_CHANGE after adding an address");
	RDMA_KT_EQ(ctx, atomic_read(&r.bad), 0);
out:
	if (reg)
		ib_unregister_event_handler(&r.h);
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

/* ---- the RoCE GID table ------------------------------------------------ */

static void gid_default_entries(struct rdma_ktap_ctx *ctx)
{
	static const enum ib_gid_type types[] = { IB_GID_TYPE_ROCE,
						  IB_GID_TYPE_ROCE_UDP_ENCAP };
	const struct ib_gid_attr *attr;
	struct rdma_mock_gid_slot slot;
	struct net_device *ndev;
	union ib_gid want, got;
	struct rdma_mock_fx fx;
	int i;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	gid_default(&want);
	for (i = 0; i < 2; i++) {
		attr = rdma_get_gid_attr(fx.dev, 1, i);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(attr), "GID %d: %ld", i,
				    PTR_ERR(attr)))
			continue;
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&attr->gid, &want),
			       "GID %d is %pI6, expected %pI6", i,
			       attr->gid.raw, want.raw);
		RDMA_KT_EQ(ctx, attr->gid_type, types[i]);
		RDMA_KT_EQ(ctx, attr->index, i);
		RDMA_KT_EQ(ctx, attr->port_num, 1);
		RDMA_KT_EXPECT(ctx, attr->device == fx.dev, "wrong device");
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		RDMA_KT_EXPECT(ctx, !IS_ERR(ndev) && ndev == ct_ndev,
			       "GID %d netdev %p", i, ndev);
		rcu_read_unlock();
		rdma_put_gid_attr(attr);

		RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 1, i, &got), 0);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&got, &want), "rdma_query_gid(%d) %pI6",
			       i, got.raw);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_slot(fx.md, 1, i, &slot) &&
			       rdma_mock_gid_eq(&slot.gid, &want) &&
			       slot.gid_type == types[i],
			       "the driver was not told about GID %d", i);
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->gid_errors), 0);
out:
	rdma_mock_fx_fini(&fx);
}

static void gid_ip_entries(struct rdma_ktap_ctx *ctx, bool v6)
{
	static const enum ib_gid_type types[] = { IB_GID_TYPE_ROCE,
						  IB_GID_TYPE_ROCE_UDP_ENCAP };
	const struct ib_gid_attr *attr;
	struct rdma_mock_gid_slot slot;
	int idx[2] = { -1, -1 };
	union ib_gid gid, got;
	struct rdma_mock_fx fx;
	int i;

	if (v6)
		rdma_kt_gid_v6(&gid, &ct_addr6);
	else
		rdma_kt_gid_v4(&gid, CT_ADDR4);
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	if (!(v6 ? addr6(ctx, true) : addr4(ctx, true)))
		goto out;
	for (i = 0; i < 2; i++) {
		attr = rdma_mock_gid_wait(fx.dev, &gid, types[i]);
		if (!RDMA_KT_EXPECT(ctx, attr, "%pI6 type %d never appeared",
				    gid.raw, types[i]))
			continue;
		idx[i] = attr->index;
		RDMA_KT_EXPECT(ctx, attr->index >= 2 &&
			       attr->index < RDMA_MOCK_GID_TBL_LEN,
			       "index %u", attr->index);
		RDMA_KT_EQ(ctx, attr->gid_type, types[i]);
		RDMA_KT_EQ(ctx, attr->port_num, 1);
		RDMA_KT_EQ(ctx, rdma_gid_attr_network_type(attr),
			   i == 0 ? RDMA_NETWORK_ROCE_V1 :
			   v6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4);
		rdma_put_gid_attr(attr);

		/* The same entry by netdev, by index, and in the driver. */
		attr = rdma_find_gid_by_port(fx.dev, &gid, types[i], 1, ct_ndev);
		RDMA_KT_EXPECT(ctx, !IS_ERR(attr) && attr->index == idx[i],
			       "lookup with the netdev: %ld",
			       IS_ERR(attr) ? PTR_ERR(attr) : 0);
		if (!IS_ERR(attr))
			rdma_put_gid_attr(attr);
		RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 1, idx[i], &got), 0);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&got, &gid), "index %d holds %pI6",
			       idx[i], got.raw);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_slot(fx.md, 1, idx[i], &slot) &&
			       rdma_mock_gid_eq(&slot.gid, &gid) &&
			       slot.gid_type == types[i],
			       "the driver was not told about index %d", idx[i]);
	}
	RDMA_KT_EXPECT(ctx, idx[0] != idx[1], "v1 and v2 share index %d",
		       idx[0]);

	/* Removing the address removes both entries, in the driver too. */
	if (!(v6 ? addr6(ctx, false) : addr4(ctx, false)))
		goto out;
	for (i = 0; i < 2; i++) {
		RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(!rdma_mock_gid_present(fx.dev, &gid,
									      types[i]),
						       CT_WAIT_MS),
			       "%pI6 type %d still there after removal",
			       gid.raw, types[i]);
		if (idx[i] < 0)
			continue;
		RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(!rdma_mock_gid_slot(fx.md, 1,
									   idx[i],
									   &slot),
						       CT_WAIT_MS),
			       "del_gid never called for index %d", idx[i]);
		RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 1, idx[i], &got),
			   -ENOENT);
	}
	RDMA_KT_EXPECT(ctx, rdma_mock_gid_index_valid(fx.dev, 1, 0) &&
		       rdma_mock_gid_index_valid(fx.dev, 1, 1),
		       "default GIDs went away with the address");
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->gid_errors), 0);
out:
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

static void gid_ipv4_entries(struct rdma_ktap_ctx *ctx)
{
	gid_ip_entries(ctx, false);
}

static void gid_ipv6_entries(struct rdma_ktap_ctx *ctx)
{
	gid_ip_entries(ctx, true);
}

static void gid_lookup_errors(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	attr = rdma_get_gid_attr(fx.dev, 1, RDMA_MOCK_GID_TBL_LEN);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -EINVAL);
	attr = rdma_get_gid_attr(fx.dev, 1, -1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -EINVAL);
	attr = rdma_get_gid_attr(fx.dev, 0, 0);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -EINVAL);
	attr = rdma_get_gid_attr(fx.dev, 2, 0);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -EINVAL);
	attr = rdma_get_gid_attr(fx.dev, 1, RDMA_MOCK_GID_TBL_LEN - 1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -ENODATA);
	RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 1, RDMA_MOCK_GID_TBL_LEN - 1,
				       &gid), -ENOENT);
	RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 1, RDMA_MOCK_GID_TBL_LEN, &gid),
		   -EINVAL);
	RDMA_KT_EQ(ctx, rdma_query_gid(fx.dev, 2, 0, &gid), -EINVAL);

	/* Lookups of what is not there, or on a port that is not there. */
	rdma_kt_gid_v4(&gid, CT_PEER4);
	attr = rdma_find_gid_by_port(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				     1, NULL);
	RDMA_KT_EXPECT(ctx, IS_ERR(attr), "found a GID never added");
	if (!IS_ERR(attr))
		rdma_put_gid_attr(attr);
	gid_default(&gid);
	attr = rdma_find_gid_by_port(fx.dev, &gid, IB_GID_TYPE_ROCE, 2, NULL);
	RDMA_KT_EXPECT(ctx, IS_ERR(attr), "found a GID on port 2");
	if (!IS_ERR(attr))
		rdma_put_gid_attr(attr);
	attr = rdma_find_gid_by_port(fx.dev, &gid, IB_GID_TYPE_IB, 1, NULL);
	RDMA_KT_EXPECT(ctx, IS_ERR(attr), "found the default GID as type IB");
	if (!IS_ERR(attr))
		rdma_put_gid_attr(attr);
	attr = rdma_find_gid(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP, NULL);
	RDMA_KT_EXPECT(ctx, !IS_ERR(attr) && attr->index == 1,
		       "rdma_find_gid(default, v2): %ld",
		       IS_ERR(attr) ? PTR_ERR(attr) : 0);
	if (!IS_ERR(attr))
		rdma_put_gid_attr(attr);
out:
	rdma_mock_fx_fini(&fx);
}

static void gid_l2_fields(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *attr;
	u8 mac[ETH_ALEN] = {};
	struct rdma_mock_fx fx;
	u16 vlan = 0;
	int i, ret;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	for (i = 0; i < 2; i++) {
		attr = rdma_get_gid_attr(fx.dev, 1, i);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(attr), "GID %d: %ld", i,
				    PTR_ERR(attr)))
			continue;
		ret = rdma_read_gid_l2_fields(attr, &vlan, mac);
		RDMA_KT_EQ(ctx, ret, 0);
		RDMA_KT_EQ(ctx, vlan, 0xffff);
		RDMA_KT_EXPECT(ctx, ether_addr_equal(mac, ct_mac),
			       "MAC %pM, expected %pM", mac, ct_mac);
		rdma_put_gid_attr(attr);
	}
out:
	rdma_mock_fx_fini(&fx);
}

/*
 * An address goes away while an AH uses its GID: the entry leaves the
 * table for new lookups, but stays valid for the AH, and the driver's
 * del_gid() comes only once the AH is gone.
 */
static void gid_del_while_ah_holds(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *attr;
	struct rdma_ah_attr aha;
	struct ib_ah *ah = NULL;
	union ib_gid gid, dgid;
	unsigned int dels;
	struct rdma_mock_fx fx;
	int idx;

	rdma_kt_gid_v4(&gid, CT_ADDR4);
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	if (!fx_init(ctx, &fx, NULL) || !addr4(ctx, true))
		goto out;
	attr = rdma_mock_gid_wait(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP);
	if (!RDMA_KT_EXPECT(ctx, attr, "IPv4 GID never appeared"))
		goto out;
	idx = attr->index;
	rdma_put_gid_attr(attr);

	ah_attr_init(fx.dev, &aha, idx, &dgid);
	ah = rdma_create_ah(fx.pd, &aha, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "create AH: %ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}
	dels = rdma_mock_gid_dels(fx.md, idx);
	if (!addr4(ctx, false))
		goto out;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(!rdma_mock_gid_present(fx.dev, &gid,
								      IB_GID_TYPE_ROCE_UDP_ENCAP),
					       CT_WAIT_MS),
		       "the removed address's GID is still found");
	msleep(100);
	RDMA_KT_EQ(ctx, rdma_mock_gid_dels(fx.md, idx), dels);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr && ah->sgid_attr->index == idx &&
		       rdma_mock_gid_eq(&ah->sgid_attr->gid, &gid) &&
		       ah->sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP,
		       "the AH's GID entry changed under it");

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ah = NULL;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rdma_mock_gid_dels(fx.md, idx) > dels,
					       CT_WAIT_MS),
		       "del_gid(%d) never came after the AH was destroyed", idx);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->gid_errors), 0);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

/* ---- sysfs ------------------------------------------------------------- */

#define SYSFS_BUF	128

/* Read a sysfs file of @dev into @buf without the trailing newline. */
static int sysfs_read(struct ib_device *dev, const char *rel, char *buf)
{
	char *path = kasprintf(GFP_KERNEL, "/sys/class/infiniband/%s/%s",
			       dev->name, rel);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	buf[0] = '\0';
	if (!path)
		return -ENOMEM;
	f = filp_open(path, O_RDONLY, 0);
	kfree(path);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, SYSFS_BUF - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static void sysfs_expect(struct rdma_ktap_ctx *ctx, struct ib_device *dev,
			 const char *rel, const char *want, char *buf)
{
	int ret = sysfs_read(dev, rel, buf);

	RDMA_KT_EXPECT(ctx, !ret && !strcmp(buf, want),
		       "%s: \"%s\" (%d), expected \"%s\"", rel, buf, ret, want);
}

static void sysfs_files(struct rdma_ktap_ctx *ctx)
{
	char *buf = kzalloc(SYSFS_BUF, GFP_KERNEL);
	char *want = kzalloc(SYSFS_BUF, GFP_KERNEL);
	const __be16 *guid;
	union ib_gid gid;
	struct rdma_mock_fx fx;

	if (!RDMA_KT_EXPECT(ctx, buf && want, "no memory"))
		goto out_free;
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	sysfs_expect(ctx, fx.dev, "node_type", "1: CA", buf);
	sysfs_expect(ctx, fx.dev, "fw_ver", "1.2.0", buf);
	sysfs_expect(ctx, fx.dev, "node_desc", "rdma_mock", buf);
	guid = (const __be16 *)&fx.dev->node_guid;
	snprintf(want, SYSFS_BUF, "%04x:%04x:%04x:%04x", be16_to_cpu(guid[0]),
		 be16_to_cpu(guid[1]), be16_to_cpu(guid[2]),
		 be16_to_cpu(guid[3]));
	sysfs_expect(ctx, fx.dev, "node_guid", want, buf);
	sysfs_expect(ctx, fx.dev, "ports/1/link_layer", "Ethernet", buf);
	sysfs_expect(ctx, fx.dev, "ports/1/state", "4: ACTIVE", buf);
	sysfs_expect(ctx, fx.dev, "ports/1/phys_state", "5: LinkUp", buf);
	sysfs_expect(ctx, fx.dev, "ports/1/pkeys/0", "0xffff", buf);
	gid_default(&gid);
	snprintf(want, SYSFS_BUF, "%pI6", gid.raw);
	sysfs_expect(ctx, fx.dev, "ports/1/gids/0", want, buf);
	sysfs_expect(ctx, fx.dev, "ports/1/gids/1", want, buf);
	sysfs_expect(ctx, fx.dev, "ports/1/gids/15",
		     "0000:0000:0000:0000:0000:0000:0000:0000", buf);
	sysfs_expect(ctx, fx.dev, "ports/1/gid_attrs/types/0", "IB/RoCE v1",
		     buf);
	sysfs_expect(ctx, fx.dev, "ports/1/gid_attrs/types/1", "RoCE v2", buf);
	sysfs_expect(ctx, fx.dev, "ports/1/gid_attrs/ndevs/0", ct_ndev->name,
		     buf);
out:
	rdma_mock_fx_fini(&fx);
out_free:
	kfree(want);
	kfree(buf);
}

/* ---- PD ---------------------------------------------------------------- */

static void pd_local_dma_lkey(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_opts opts = { .no_local_dma_lkey = true };
	struct rdma_mock_dev *md;
	struct ib_pd *pd;
	struct rdma_mock_fx fx;

	/* A device with a global lkey hands it to every PD. */
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EXPECT(ctx, fx.pd->device == fx.dev, "pd->device");
	RDMA_KT_EQ(ctx, fx.pd->local_dma_lkey, RDMA_MOCK_DMA_LKEY);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->pd_allocs), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->dma_mr_allocs), 0);
	ib_dealloc_pd(fx.pd);
	fx.pd = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->pd_deallocs), 1);
out:
	rdma_mock_fx_fini(&fx);

	/* Without one, the core makes a local-write DMA MR per PD. */
	md = rdma_mock_create(NULL, &opts);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "create: %ld", PTR_ERR(md)))
		return;
	pd = ib_alloc_pd(&md->ibdev, 0);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd))) {
		RDMA_KT_EQ(ctx, atomic_read(&md->dma_mr_allocs), 1);
		RDMA_KT_EQ(ctx, md->last_dma_mr_access, IB_ACCESS_LOCAL_WRITE);
		RDMA_KT_EQ(ctx, pd->local_dma_lkey, md->last_dma_mr_lkey);
		ib_dealloc_pd(pd);
		RDMA_KT_EQ(ctx, atomic_read(&md->dma_mr_deregs), 1);
		RDMA_KT_EQ(ctx, atomic_read(&md->pd_deallocs), 1);
	}
	rdma_mock_destroy(md);
}

/* ---- AH ---------------------------------------------------------------- */

static void ah_create_destroy(struct rdma_ktap_ctx *ctx)
{
	struct rdma_ah_attr attr, copy;
	const struct ib_gid_attr *sgid;
	struct rdma_mock_ah *mah;
	union ib_gid dgid, dflt;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	gid_default(&dflt);
	ah_attr_init(fx.dev, &attr, 1, &dgid);
	memcpy(&copy, &attr, sizeof(copy));
	ah = rdma_create_ah(fx.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "rdma_create_ah: %ld",
			    PTR_ERR(ah)))
		goto out;
	RDMA_KT_EXPECT(ctx, !memcmp(&attr, &copy, sizeof(attr)),
		       "the caller's ah_attr changed");
	RDMA_KT_EXPECT(ctx, ah->device == fx.dev && ah->pd == fx.pd,
		       "ah->device / ah->pd not set");
	RDMA_KT_EQ(ctx, ah->type, RDMA_AH_ATTR_TYPE_ROCE);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_creates), 1);
	RDMA_KT_EQ(ctx, fx.md->last_ah_flags, RDMA_CREATE_AH_SLEEPABLE);

	sgid = ah->sgid_attr;
	RDMA_KT_EXPECT(ctx, sgid && sgid->index == 1 && sgid->port_num == 1 &&
		       sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		       rdma_mock_gid_eq(&sgid->gid, &dflt),
		       "ah->sgid_attr is not GID 1 of port 1");
	RDMA_KT_EXPECT(ctx, fx.md->last_ah_sgid_attr == sgid,
		       "the driver saw another sgid_attr");

	/* What the driver was given. */
	mah = to_mock_ah(ah);
	RDMA_KT_EXPECT(ctx, mah->attr.grh.sgid_attr == sgid,
		       "driver's attr has sgid_attr %p, AH holds %p",
		       mah->attr.grh.sgid_attr, sgid);
	RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&mah->attr.grh.dgid, &dgid), "dgid");
	RDMA_KT_EXPECT(ctx, ether_addr_equal(mah->attr.roce.dmac, ct_peer_mac),
		       "dmac %pM", mah->attr.roce.dmac);
	RDMA_KT_EQ(ctx, mah->attr.grh.flow_label, 0x12345);
	RDMA_KT_EQ(ctx, mah->attr.grh.hop_limit, 64);
	RDMA_KT_EQ(ctx, mah->attr.grh.traffic_class, 0x20);
	RDMA_KT_EQ(ctx, mah->attr.grh.sgid_index, 1);
	RDMA_KT_EQ(ctx, mah->attr.sl, 3);
	RDMA_KT_EQ(ctx, mah->attr.static_rate, IB_RATE_10_GBPS);
	RDMA_KT_EQ(ctx, mah->attr.port_num, 1);

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_destroys), 1);
out:
	rdma_mock_fx_fini(&fx);
}

/* Expect rdma_create_ah() to fail with @err without touching anything. */
static void ah_expect_err(struct rdma_ktap_ctx *ctx, struct rdma_mock_fx *fx,
			  struct rdma_ah_attr *attr, int err, const char *what)
{
	int calls = atomic_read(&fx->md->ah_create_calls);
	struct rdma_ah_attr copy;
	struct ib_ah *ah;

	memcpy(&copy, attr, sizeof(copy));
	ah = rdma_create_ah(fx->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, IS_ERR(ah) && PTR_ERR(ah) == err,
			    "%s: got %ld, expected %d", what,
			    IS_ERR(ah) ? PTR_ERR(ah) : 0L, err)) {
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	RDMA_KT_EXPECT(ctx, !memcmp(attr, &copy, sizeof(copy)),
		       "%s: ah_attr changed", what);
	RDMA_KT_EXPECT(ctx, atomic_read(&fx->md->ah_create_calls) == calls,
		       "%s: the driver was called", what);
	RDMA_KT_EXPECT(ctx, !atomic_read(&fx->pd->usecnt),
		       "%s: pd usecnt %d", what, atomic_read(&fx->pd->usecnt));
}

static void ah_invalid_attrs(struct rdma_ktap_ctx *ctx)
{
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);

	ah_attr_init(fx.dev, &attr, 0, &dgid);
	attr.port_num = 0;
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "port 0");
	attr.port_num = 2;
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "port 2");

	ah_attr_init(fx.dev, &attr, 0, &dgid);
	attr.ah_flags = 0;
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "RoCE without GRH");

	ah_attr_init(fx.dev, &attr, RDMA_MOCK_GID_TBL_LEN, &dgid);
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "sgid_index = table size");
	ah_attr_init(fx.dev, &attr, 255, &dgid);
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "sgid_index 255");

	ah_attr_init(fx.dev, &attr, RDMA_MOCK_GID_TBL_LEN - 1, &dgid);
	ah_expect_err(ctx, &fx, &attr, -ENODATA, "empty GID slot");
out:
	rdma_mock_fx_fini(&fx);
}

static void ah_sgid_attr_supplied(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_opts opts = { .num_ports = 2 };
	const struct ib_gid_attr *sgid;
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, &opts))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	sgid = rdma_get_gid_attr(fx.dev, 1, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(sgid), "GID 0: %ld", PTR_ERR(sgid)))
		goto out;

	ah_attr_init(fx.dev, &attr, 1, &dgid);
	attr.grh.sgid_attr = sgid;
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "sgid_attr of another index");

	ah_attr_init(fx.dev, &attr, 0, &dgid);
	attr.port_num = 2;
	attr.grh.sgid_attr = sgid;
	ah_expect_err(ctx, &fx, &attr, -EINVAL, "sgid_attr of another port");

	/* A matching one is used, and stays the caller's. */
	ah_attr_init(fx.dev, &attr, 0, &dgid);
	attr.grh.sgid_attr = sgid;
	ah = rdma_create_ah(fx.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "matching sgid_attr: %ld",
			   PTR_ERR(ah))) {
		RDMA_KT_EXPECT(ctx, ah->sgid_attr == sgid,
			       "the AH does not use the supplied entry");
		RDMA_KT_EXPECT(ctx, attr.grh.sgid_attr == sgid,
			       "the caller's sgid_attr was replaced");
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	/* Still ours to put: a core that dropped it underflows here. */
	rdma_put_gid_attr(sgid);
out:
	rdma_mock_fx_fini(&fx);
}

static void ah_no_create_ah_op(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_opts opts = { .no_create_ah = true };
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, &opts))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	ah_attr_init(fx.dev, &attr, 0, &dgid);
	ah_expect_err(ctx, &fx, &attr, -EOPNOTSUPP, "no create_ah");
out:
	rdma_mock_fx_fini(&fx);
}

static void ah_driver_failure(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct rdma_ah_attr attr, copy;
	union ib_gid gid, dgid;
	unsigned int dels;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;
	int idx;

	rdma_kt_gid_v4(&gid, CT_ADDR4);
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	if (!fx_init(ctx, &fx, NULL) || !addr4(ctx, true))
		goto out;
	sgid = rdma_mock_gid_wait(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP);
	if (!RDMA_KT_EXPECT(ctx, sgid, "IPv4 GID never appeared"))
		goto out;
	idx = sgid->index;
	rdma_put_gid_attr(sgid);

	WRITE_ONCE(fx.md->ah_create_err, -EIO);
	ah_attr_init(fx.dev, &attr, idx, &dgid);
	memcpy(&copy, &attr, sizeof(copy));
	ah = rdma_create_ah(fx.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	WRITE_ONCE(fx.md->ah_create_err, 0);
	if (!RDMA_KT_EXPECT(ctx, IS_ERR(ah) && PTR_ERR(ah) == -EIO,
			    "driver failure gave %ld",
			    IS_ERR(ah) ? PTR_ERR(ah) : 0L)) {
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		goto out;
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_create_calls), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	RDMA_KT_EXPECT(ctx, !memcmp(&attr, &copy, sizeof(attr)),
		       "the caller's ah_attr changed");

	/* No GID reference may be left behind: del_gid comes promptly. */
	dels = rdma_mock_gid_dels(fx.md, idx);
	if (!addr4(ctx, false))
		goto out;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rdma_mock_gid_dels(fx.md, idx) > dels,
					       CT_WAIT_MS),
		       "del_gid(%d) never came: the failed create kept a reference",
		       idx);
out:
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

static void ah_atomic_context(struct rdma_ktap_ctx *ctx, bool irqs)
{
	struct rdma_ah_attr attr;
	bool ctx_kept = true;
	union ib_gid dgid;
	struct rdma_mock_fx fx;
	long ret;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	ah_attr_init(fx.dev, &attr, 1, &dgid);
	ret = PTR_ERR_OR_ZERO(rdma_kt_ah_in_ctx(fx.pd, &attr,
						irqs ? RDMA_KT_AH_IRQSAVE :
						       RDMA_KT_AH_BH,
						true, &ctx_kept));
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	RDMA_KT_EXPECT(ctx, ctx_kept,
		       "the core left atomic context or enabled interrupts");
	RDMA_KT_EXPECT(ctx, fx.md->last_ah_in_atomic,
		       "the driver did not run in atomic context");
	if (irqs)
		RDMA_KT_EXPECT(ctx, fx.md->last_ah_irqs_disabled,
			       "the driver ran with interrupts on");
	RDMA_KT_EQ(ctx, fx.md->last_ah_flags, 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_destroys), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
out:
	rdma_mock_fx_fini(&fx);
}

static void ah_atomic_bh(struct rdma_ktap_ctx *ctx)
{
	ah_atomic_context(ctx, false);
}

static void ah_atomic_irqsave(struct rdma_ktap_ctx *ctx)
{
	ah_atomic_context(ctx, true);
}

static void ah_query_modify(struct rdma_ktap_ctx *ctx)
{
	struct rdma_ah_attr attr, out, saved;
	const struct ib_gid_attr *before;
	union ib_gid dgid, dgid2;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;
	int ret;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	rdma_kt_gid_v4(&dgid, CT_PEER4);
	ah_attr_init(fx.dev, &attr, 1, &dgid);
	ah = rdma_create_ah(fx.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "create: %ld", PTR_ERR(ah)))
		goto out;

	memset(&out, 0xa5, sizeof(out));
	ret = rdma_query_ah(ah, &out);
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EXPECT(ctx, !out.grh.sgid_attr,
			       "query returned an sgid_attr (a reference?)");
		RDMA_KT_EQ(ctx, out.type, RDMA_AH_ATTR_TYPE_ROCE);
		RDMA_KT_EQ(ctx, out.port_num, 1);
		RDMA_KT_EQ(ctx, out.grh.sgid_index, 1);
		RDMA_KT_EQ(ctx, out.sl, 3);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&out.grh.dgid, &dgid), "dgid");
		RDMA_KT_EXPECT(ctx, ether_addr_equal(out.roce.dmac, ct_peer_mac),
			       "dmac %pM", out.roce.dmac);
	}

	/* Failed modifies change nothing. */
	before = ah->sgid_attr;
	memcpy(&saved, &to_mock_ah(ah)->attr, sizeof(saved));
	rdma_kt_gid_v4(&dgid2, htonl(0x0a090003));
	ah_attr_init(fx.dev, &attr, 0, &dgid2);
	attr.type = RDMA_AH_ATTR_TYPE_IB;
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -EINVAL);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr == before,
		       "type mismatch changed ah->sgid_attr");

	ah_attr_init(fx.dev, &attr, 0, &dgid2);
	WRITE_ONCE(fx.md->ah_modify_err, -EIO);
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -EIO);
	WRITE_ONCE(fx.md->ah_modify_err, 0);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr == before,
		       "failed driver modify changed ah->sgid_attr");
	RDMA_KT_EXPECT(ctx, !memcmp(&saved, &to_mock_ah(ah)->attr,
				    sizeof(saved)),
		       "driver state changed");

	ah_attr_init(fx.dev, &attr, RDMA_MOCK_GID_TBL_LEN - 1, &dgid2);
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -ENODATA);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr == before,
		       "failed GID lookup changed ah->sgid_attr");

	/* A good one moves the AH to the new source GID. */
	ah_attr_init(fx.dev, &attr, 0, &dgid2);
	ret = rdma_modify_ah(ah, &attr);
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EXPECT(ctx, ah->sgid_attr && ah->sgid_attr->index == 0,
			       "ah->sgid_attr not moved to index 0");
		RDMA_KT_EXPECT(ctx,
			       rdma_mock_gid_eq(&to_mock_ah(ah)->attr.grh.dgid, &dgid2),
			       "driver has the old dgid");
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
out:
	rdma_mock_fx_fini(&fx);
}

/* ---- reply AHs from a received work completion ------------------------- */

static void ah_from_wc(struct rdma_ktap_ctx *ctx, bool v6)
{
	union rdma_network_hdr *hdr = kzalloc(sizeof(*hdr), GFP_KERNEL);
	const struct ib_gid_attr *lattr;
	struct rdma_ah_attr attr = {};
	union ib_gid lgid, rgid;
	struct rdma_mock_ah *mah;
	struct ib_wc wc;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;
	int ret, i;

	if (!RDMA_KT_EXPECT(ctx, hdr, "no memory"))
		return;
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	if (v6) {
		rdma_kt_gid_v6(&lgid, &ct_addr6);
		rdma_kt_gid_v6(&rgid, &ct_peer6);
		if (!addr6(ctx, true))
			goto out;
		ret = rdma_mock_neigh6(ct_ndev, true, &ct_peer6, ct_peer_mac);
		rdma_kt_hdr_ipv6(hdr, &ct_peer6, &ct_addr6, 0x12, 0x34567);
	} else {
		rdma_kt_gid_v4(&lgid, CT_ADDR4);
		rdma_kt_gid_v4(&rgid, CT_PEER4);
		if (!addr4(ctx, true))
			goto out;
		ret = rdma_mock_neigh4(ct_ndev, true, CT_PEER4, ct_peer_mac);
		rdma_kt_hdr_ipv4(hdr, CT_PEER4, CT_ADDR4);
	}
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	lattr = rdma_mock_gid_wait(fx.dev, &lgid, IB_GID_TYPE_ROCE_UDP_ENCAP);
	if (lattr)
		rdma_put_gid_attr(lattr);
	if (!RDMA_KT_EXPECT(ctx, lattr, "local v2 GID never appeared"))
		goto out;

	/* Sniffed from the header, then told by the completion. */
	for (i = 0; i < 2; i++) {
		rdma_kt_wc_init(&wc, NULL);
		if (i) {
			wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
			wc.network_hdr_type = v6 ? RDMA_NETWORK_IPV6 :
						   RDMA_NETWORK_IPV4;
		}
		memset(&attr, 0, sizeof(attr));
		ret = ib_init_ah_attr_from_wc(fx.dev, 1, &wc, &hdr->ibgrh,
					      &attr);
		if (!RDMA_KT_EQ(ctx, ret, 0))
			continue;
		RDMA_KT_EQ(ctx, attr.type, RDMA_AH_ATTR_TYPE_ROCE);
		RDMA_KT_EQ(ctx, attr.port_num, 1);
		RDMA_KT_EQ(ctx, attr.sl, 2);
		RDMA_KT_EXPECT(ctx, attr.ah_flags & IB_AH_GRH, "no GRH");
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&attr.grh.dgid, &rgid),
			       "reply dgid %pI6, expected the sender %pI6",
			       attr.grh.dgid.raw, rgid.raw);
		RDMA_KT_EXPECT(ctx, attr.grh.sgid_attr &&
			       rdma_mock_gid_eq(&attr.grh.sgid_attr->gid, &lgid) &&
			       attr.grh.sgid_attr->gid_type ==
			       IB_GID_TYPE_ROCE_UDP_ENCAP,
			       "reply source is not our v2 GID");
		RDMA_KT_EXPECT(ctx, attr.grh.sgid_attr &&
			       attr.grh.sgid_index == attr.grh.sgid_attr->index,
			       "sgid_index %u disagrees with sgid_attr",
			       attr.grh.sgid_index);
		/* Resolving the MAC replaces the 0xff default with the route's. */
		RDMA_KT_EQ(ctx, attr.grh.hop_limit, CT_ROUTE_HOP_LIMIT);
		if (v6) {
			RDMA_KT_EQ(ctx, attr.grh.traffic_class, 0x12);
			RDMA_KT_EQ(ctx, attr.grh.flow_label, 0x34567);
		}
		RDMA_KT_EXPECT(ctx, ether_addr_equal(attr.roce.dmac, ct_peer_mac),
			       "dmac %pM, expected the neighbour's %pM",
			       attr.roce.dmac, ct_peer_mac);
		rdma_destroy_ah_attr(&attr);
	}

	rdma_kt_wc_init(&wc, NULL);
	ah = ib_create_ah_from_wc(fx.pd, &wc, &hdr->ibgrh, 1);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "ib_create_ah_from_wc: %ld",
			   PTR_ERR(ah))) {
		mah = to_mock_ah(ah);
		RDMA_KT_EXPECT(ctx, ah->sgid_attr &&
			       rdma_mock_gid_eq(&ah->sgid_attr->gid, &lgid),
			       "AH source GID");
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&mah->attr.grh.dgid, &rgid),
			       "AH dgid %pI6", mah->attr.grh.dgid.raw);
		RDMA_KT_EXPECT(ctx, ether_addr_equal(mah->attr.roce.dmac,
						     ct_peer_mac),
			       "AH dmac %pM", mah->attr.roce.dmac);
		RDMA_KT_EQ(ctx, fx.md->last_ah_flags, RDMA_CREATE_AH_SLEEPABLE);
		RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
out:
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
	kfree(hdr);
}

static void ah_from_wc_ipv4(struct rdma_ktap_ctx *ctx)
{
	ah_from_wc(ctx, false);
}

static void ah_from_wc_ipv6(struct rdma_ktap_ctx *ctx)
{
	ah_from_wc(ctx, true);
}

static void ah_from_wc_without_grh(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr *hdr = kzalloc(sizeof(*hdr), GFP_KERNEL);
	struct rdma_ah_attr attr = {};
	struct ib_wc wc;
	struct ib_ah *ah;
	struct rdma_mock_fx fx;

	if (!RDMA_KT_EXPECT(ctx, hdr, "no memory"))
		return;
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	rdma_kt_hdr_ipv4(hdr, CT_PEER4, CT_ADDR4);
	rdma_kt_wc_init(&wc, NULL);
	wc.wc_flags = 0;
	RDMA_KT_EQ(ctx, ib_init_ah_attr_from_wc(fx.dev, 1, &wc, &hdr->ibgrh,
						&attr), -EPROTOTYPE);
	RDMA_KT_EXPECT(ctx, !attr.grh.sgid_attr,
		       "a failed call left an sgid_attr reference");
	ah = ib_create_ah_from_wc(fx.pd, &wc, &hdr->ibgrh, 1);
	RDMA_KT_EXPECT(ctx, IS_ERR(ah) && PTR_ERR(ah) == -EPROTOTYPE,
		       "ib_create_ah_from_wc: %ld",
		       IS_ERR(ah) ? PTR_ERR(ah) : 0L);
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_create_calls), 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
out:
	rdma_mock_fx_fini(&fx);
	kfree(hdr);
}

static const struct rdma_ktap_case core_cases[] = {
	{ "dev_register_names", dev_register_names },
	{ "dev_rename", dev_rename },
	{ "clients_add_remove", clients_add_remove },
	{ "clients_slow_add", clients_slow_add },
	{ "dev_unregister_waits_for_refs", dev_unregister_waits_for_refs },
	{ "dev_unregister_with_objects", dev_unregister_with_objects },
	{ "dev_netdev_unregister", dev_netdev_unregister },
	{ "events_dispatch", events_dispatch },
	{ "events_gid_change", events_gid_change },
	{ "gid_default_entries", gid_default_entries },
	{ "gid_ipv4_entries", gid_ipv4_entries },
	{ "gid_ipv6_entries", gid_ipv6_entries },
	{ "gid_lookup_errors", gid_lookup_errors },
	{ "gid_l2_fields", gid_l2_fields },
	{ "gid_del_while_ah_holds", gid_del_while_ah_holds },
	{ "sysfs_files", sysfs_files },
	{ "pd_local_dma_lkey", pd_local_dma_lkey },
	{ "ah_create_destroy", ah_create_destroy },
	{ "ah_invalid_attrs", ah_invalid_attrs },
	{ "ah_sgid_attr_supplied", ah_sgid_attr_supplied },
	{ "ah_no_create_ah_op", ah_no_create_ah_op },
	{ "ah_driver_failure", ah_driver_failure },
	{ "ah_atomic_bh", ah_atomic_bh },
	{ "ah_atomic_irqsave", ah_atomic_irqsave },
	{ "ah_query_modify", ah_query_modify },
	{ "ah_from_wc_ipv4", ah_from_wc_ipv4 },
	{ "ah_from_wc_ipv6", ah_from_wc_ipv6 },
	{ "ah_from_wc_without_grh", ah_from_wc_without_grh },
};

static int __init core_test_init(void)
{
	ct_ndev = rdma_mock_netdev_create("rdmacore%d", ct_mac);
	if (IS_ERR(ct_ndev)) {
		pr_err("rdma_core_test: no test netdev: %ld\n", PTR_ERR(ct_ndev));
		return PTR_ERR(ct_ndev);
	}
	rdma_ktap_run("rdma_core", core_cases, ARRAY_SIZE(core_cases));
	return 0;
}

static void __exit core_test_exit(void)
{
	rdma_mock_netdev_destroy(ct_ndev);
}

module_init(core_test_init);
module_exit(core_test_exit);

MODULE_DESCRIPTION("KTAP tests of the RDMA core's devices, clients, GID table and AHs");
MODULE_LICENSE("GPL");
