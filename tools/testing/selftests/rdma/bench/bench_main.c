// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: module, device binding and the command interface.
 *
 * Write one command to /sys/module/rdma_bench/parameters/ctl; the write
 * returns when the command has finished, with its status, and
 * /sys/module/rdma_bench/parameters/result then holds one line of
 * key=value words (or "error=-N cmd=NAME").  Commands:
 *
 *   info                           device, port, RoCE v2 IPv4 GID index
 *   ah secs= dest= dmac= atomic=   rdma_create_ah() + rdma_destroy_ah()
 *                                  pairs for secs seconds; atomic=1 makes
 *                                  them with flags 0 under
 *                                  local_bh_disable(), else sleepable
 *   qp type=ud|rc size= depth= echo=
 *                                  PD, CQs, QP, receive buffers of size
 *                                  bytes (posted: depth of them); prints
 *                                  qpn= and psn=; echo=1 (UD) sends every
 *                                  datagram back to its sender
 *   connect dest= dmac= dqpn= dpsn=
 *                                  UD: the AH to the peer; RC: INIT, RTR,
 *                                  RTS towards the peer's QP
 *   send secs= size= window=       stream sends of size bytes to the peer
 *                                  for secs seconds, window of them in
 *                                  flight, each completion posting the next
 *   ping iters= size=              UD ping-pong with an echo=1 peer; one-way
 *                                  latency = round trip / 2
 *   clear, stats                   receive counters: reset, show (rate from
 *                                  the first to the last message)
 *   close                          everything "qp" and "connect" made
 *   udp_listen port=               a kernel UDP socket counting datagrams
 *                                  (the same receive counters)
 *   udp_send dest= port= secs= size=
 *                                  a kernel UDP socket sending datagrams
 *   udp_close                      the listening socket
 *   calib                          time a fixed amount of CPU work: the
 *                                  guest's speed at that moment
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bench.h"
#include "../ulp/rdma_ulp_util.h"

static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to use (default: the first RoCE one)");

/* Serialises the commands and the client callbacks (see struct bench_ctx). */
static DEFINE_MUTEX(bench_lock);
static struct bench_ctx bench;
static char bench_result[BENCH_RESULT_LEN] = "none\n";

struct bench_cmd {
	const char	*name;
	bench_cmd_fn	fn;
	bool		needs_dev;
};

static const struct bench_cmd bench_cmds[] = {
	{ "info",	bench_info,		true },
	{ "ah",		bench_ah_run,		true },
	{ "qp",		bench_qp_create,	true },
	{ "connect",	bench_qp_connect,	true },
	{ "send",	bench_stream_send,	true },
	{ "ping",	bench_ping_run,		true },
	{ "clear",	bench_stats_clear,	false },
	{ "stats",	bench_stats_show,	false },
	{ "close",	bench_qp_close_cmd,	false },
	{ "udp_listen",	bench_udp_listen,	false },
	{ "udp_send",	bench_udp_send,		false },
	{ "udp_close",	bench_udp_close_cmd,	false },
	{ "calib",	bench_calib,		false },
};

static int bench_run(char *line)
{
	const struct bench_cmd *cmd = NULL;
	char res[BENCH_RESULT_LEN] = "";
	struct bench_args *args;
	char *name;
	unsigned int i;
	int ret;

	name = strsep(&line, " \t\n");
	for (i = 0; name && i < ARRAY_SIZE(bench_cmds); i++)
		if (!strcmp(name, bench_cmds[i].name))
			cmd = &bench_cmds[i];
	if (!cmd) {
		ret = -EINVAL;
		goto out;
	}
	args = kmalloc(sizeof(*args), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	ret = bench_parse_args(line, args);
	if (!ret && cmd->needs_dev && !bench.dev)
		ret = -ENODEV;
	if (!ret)
		ret = cmd->fn(&bench, args, res, sizeof(res));
	kfree(args);
out:
	if (ret)
		snprintf(bench_result, sizeof(bench_result),
			 "error=%d cmd=%s %s\n", ret, name ?: "", res);
	else
		snprintf(bench_result, sizeof(bench_result), "%s\n", res);
	return ret;
}

static int bench_ctl_set(const char *val, const struct kernel_param *kp)
{
	char *line;
	int ret;

	line = kstrdup(val, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	mutex_lock(&bench_lock);
	ret = bench_run(strim(line));
	mutex_unlock(&bench_lock);
	kfree(line);
	return ret;
}

static const struct kernel_param_ops bench_ctl_ops = {
	.set = bench_ctl_set,
};

module_param_cb(ctl, &bench_ctl_ops, NULL, 0200);
MODULE_PARM_DESC(ctl, "write a command (see the module source); returns when done");

static int bench_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&bench_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s", bench_result);
	mutex_unlock(&bench_lock);
	return n;
}

static const struct kernel_param_ops bench_result_ops = {
	.get = bench_result_get,
};

module_param_cb(result, &bench_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the last command's result, key=value words");

/**
 * bench_info() - the "info" command: which device and GID the module uses
 * @c: the instance
 * @a: unused
 * @res: result line
 * @len: its size
 *
 * Return: 0, or -ENODATA while the port has no RoCE v2 IPv4 GID.
 */
int bench_info(struct bench_ctx *c, const struct bench_args *a,
	       char *res, size_t len)
{
	int idx = rdma_ulp_find_sgid(c->dev, c->port, true);

	snprintf(res, len, "dev=%s port=%u sgid_index=%d",
		 dev_name(&c->dev->dev), c->port, idx);
	return idx < 0 ? -ENODATA : 0;
}

static int bench_add_one(struct ib_device *dev)
{
	mutex_lock(&bench_lock);
	if (!bench.dev && (!ibdev || !strcmp(ibdev, dev_name(&dev->dev))) &&
	    rdma_protocol_roce(dev, rdma_start_port(dev))) {
		bench.dev = dev;
		bench.port = rdma_start_port(dev);
		bench.sgid_index = -1;
	}
	mutex_unlock(&bench_lock);
	return 0;
}

static void bench_remove_one(struct ib_device *dev, void *client_data)
{
	mutex_lock(&bench_lock);
	if (bench.dev == dev) {
		bench_qp_close(&bench);
		bench.dev = NULL;
	}
	mutex_unlock(&bench_lock);
}

static struct ib_client bench_client = {
	.name = "rdma_bench",
	.add = bench_add_one,
	.remove = bench_remove_one,
};

static int __init bench_init(void)
{
	init_waitqueue_head(&bench.tx_wait);
	bench_stats_init(&bench);
	bench_ping_init(&bench);
	return ib_register_client(&bench_client);
}

static void __exit bench_exit(void)
{
	ib_unregister_client(&bench_client);
	mutex_lock(&bench_lock);
	bench_udp_close(&bench);
	mutex_unlock(&bench_lock);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("RDMA kernel verbs load generators for make bench");
MODULE_LICENSE("GPL");
