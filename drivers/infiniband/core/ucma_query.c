// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm queries: what librdmacm learns about an ID after a bind, an
 * address or route resolution, or a connection request.  QUERY_ROUTE is
 * the older all-in-one answer (IPv4/IPv6 addresses only); QUERY answers
 * one of ADDR (addresses and device), GID (both ends as AF_IB addresses)
 * or PATH (the route as packed PathRecords).
 */
#include <linux/slab.h>
#include <rdma/ib.h>
#include <rdma/ib_marshall.h>
#include "ucma_priv.h"

/* Copy @src into @dst of @room bytes when it fits; its size, or 0. */
static u16 ucma_copy_addr(void *dst, size_t room, const struct sockaddr *src)
{
	int size = rdma_addr_size(src);

	if (!size || size > room)
		return 0;
	memcpy(dst, src, size);
	return size;
}

static struct sockaddr *ucma_src(struct rdma_cm_id *cm_id)
{
	return (struct sockaddr *)&cm_id->route.addr.src_addr;
}

static struct sockaddr *ucma_dst(struct rdma_cm_id *cm_id)
{
	return (struct sockaddr *)&cm_id->route.addr.dst_addr;
}

/*
 * The route's paths in the user layout.  A RoCE ID without a path yet
 * gets one made of the two ends' GIDs and the default P_Key; an iWARP ID,
 * which has none, the two ends' GIDs (their MAC addresses).
 */
static void ucma_route_paths(struct rdma_ucm_query_route_resp *resp,
			     struct rdma_cm_id *cm_id)
{
	struct rdma_route *route = &cm_id->route;
	bool roce = rdma_protocol_roce(cm_id->device, cm_id->port_num);
	union ib_gid sgid, dgid;
	unsigned int i, n;

	n = min_t(unsigned int, route->num_pri_alt_paths,
		  ARRAY_SIZE(resp->ib_route));
	resp->num_paths = n;
	for (i = 0; i < n; i++)
		ib_copy_path_rec_to_user(&resp->ib_route[i],
					 &route->path_rec[i]);
	if (n || (!roce &&
		  !rdma_protocol_iwarp(cm_id->device, cm_id->port_num)))
		return;
	rdma_read_gids(cm_id, &sgid, &dgid);
	memcpy(resp->ib_route[0].sgid, sgid.raw, sizeof(sgid));
	memcpy(resp->ib_route[0].dgid, dgid.raw, sizeof(dgid));
	if (roce)
		resp->ib_route[0].pkey = cpu_to_be16(IB_DEFAULT_PKEY_FULL);
}

/**
 * ucma_query_route() - QUERY_ROUTE: addresses, device, port and paths
 * @file: the file
 * @in: struct rdma_ucm_query
 * @out: room at the response pointer
 *
 * Return: 0; ucma_get_locked() errors; -EFAULT.
 */
ssize_t ucma_query_route(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_query *cmd = in;
	struct rdma_ucm_query_route_resp resp = {};
	struct ucma_context *ctx = ucma_get_locked(file, cmd->id);
	struct rdma_cm_id *cm_id;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cm_id = ctx->cm_id;
	ucma_copy_addr(&resp.src_addr, sizeof(resp.src_addr), ucma_src(cm_id));
	ucma_copy_addr(&resp.dst_addr, sizeof(resp.dst_addr), ucma_dst(cm_id));
	if (cm_id->device) {
		resp.node_guid = (__force u64)cm_id->device->node_guid;
		resp.ibdev_index = cm_id->device->index;
		resp.port_num = cm_id->port_num;
		ucma_route_paths(&resp, cm_id);
	}
	ucma_put_unlock(ctx);
	if (copy_to_user(u64_to_user_ptr(cmd->response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/* One end as an AF_IB address: its GID and the Service ID of its port. */
static void ucma_sib(struct sockaddr_ib *sib, struct rdma_cm_id *cm_id,
		     struct sockaddr *addr, const union ib_gid *gid)
{
	if (addr->sa_family == AF_IB) {
		memcpy(sib, addr, sizeof(*sib));
		return;
	}
	sib->sib_family = AF_IB;
	sib->sib_pkey = cpu_to_be16(IB_DEFAULT_PKEY_FULL);
	memcpy(&sib->sib_addr, gid, sizeof(*gid));
	sib->sib_sid = rdma_get_service_id(cm_id, addr);
	sib->sib_sid_mask = cpu_to_be64(~0ULL);
}

/*
 * ADDR (@gid false) and GID answers: the device, port and default P_Key
 * once the ID has a device; both ends as the ID holds them, or as AF_IB
 * addresses made of their GIDs.
 */
static void ucma_query_ends(struct rdma_ucm_query_addr_resp *resp,
			    struct rdma_cm_id *cm_id, bool gid)
{
	struct ib_device *dev = cm_id->device;
	union ib_gid sgid, dgid;

	resp->node_guid = dev ? (__force u64)dev->node_guid : 0;
	resp->ibdev_index = dev ? dev->index : 0;
	resp->port_num = dev ? cm_id->port_num : 0;
	resp->pkey = dev ? (__force u16)cpu_to_be16(IB_DEFAULT_PKEY_FULL) : 0;
	if (!gid) {
		resp->src_size = ucma_copy_addr(&resp->src_addr,
						sizeof(resp->src_addr),
						ucma_src(cm_id));
		resp->dst_size = ucma_copy_addr(&resp->dst_addr,
						sizeof(resp->dst_addr),
						ucma_dst(cm_id));
		return;
	}
	rdma_read_gids(cm_id, &sgid, &dgid);
	ucma_sib((struct sockaddr_ib *)&resp->src_addr, cm_id,
		 ucma_src(cm_id), &sgid);
	ucma_sib((struct sockaddr_ib *)&resp->dst_addr, cm_id,
		 ucma_dst(cm_id), &dgid);
	resp->src_size = sizeof(struct sockaddr_ib);
	resp->dst_size = sizeof(struct sockaddr_ib);
}

/* As many paths as @out has room for, each a packed PathRecord. */
static int ucma_query_path(struct rdma_cm_id *cm_id, u64 response, int out)
{
	const u32 flags = IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL;
	struct rdma_ucm_query_path_resp *resp;
	unsigned int i, n;
	size_t size;
	int ret = 0;

	if (out < sizeof(*resp))
		return -ENOSPC;
	n = min_t(unsigned int, cm_id->route.num_pri_alt_paths,
		  (out - sizeof(*resp)) / sizeof(resp->path_data[0]));
	size = struct_size(resp, path_data, n);
	resp = kzalloc(size, GFP_KERNEL);
	if (!resp)
		return -ENOMEM;
	resp->num_paths = n;
	for (i = 0; i < n; i++) {
		resp->path_data[i].flags = flags;
		ib_sa_pack_path(&cm_id->route.path_rec[i],
				resp->path_data[i].path_rec);
	}
	if (copy_to_user(u64_to_user_ptr(response), resp, size))
		ret = -EFAULT;
	kfree(resp);
	return ret;
}

/**
 * ucma_query() - QUERY: addresses (ADDR), GIDs (GID) or paths (PATH)
 * @file: the file
 * @in: struct rdma_ucm_query
 * @out: room at the response pointer
 *
 * Return: 0; -ENOSPC; -ENOSYS for an unknown option; ucma_get_locked()
 * errors; -ENOMEM; -EFAULT.
 */
ssize_t ucma_query(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_query *cmd = in;
	struct rdma_ucm_query_addr_resp resp = {};
	bool path = cmd->option == RDMA_USER_CM_QUERY_PATH;
	struct ucma_context *ctx;
	int ret = 0;

	if (cmd->option > RDMA_USER_CM_QUERY_GID)
		return -ENOSYS;
	if (!path && out < sizeof(resp))
		return -ENOSPC;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (path)
		ret = ucma_query_path(ctx->cm_id, cmd->response, out);
	else
		ucma_query_ends(&resp, ctx->cm_id,
				cmd->option == RDMA_USER_CM_QUERY_GID);
	ucma_put_unlock(ctx);
	if (!path && copy_to_user(u64_to_user_ptr(cmd->response), &resp,
				  sizeof(resp)))
		ret = -EFAULT;
	return ret;
}
