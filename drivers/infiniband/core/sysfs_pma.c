// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * /sys/class/infiniband/<dev>/ports/<p>/counters: the port counters of the
 * performance management agent (PMA), for devices with a process_mad()
 * callback.
 *
 * Each read asks the provider's agent afresh: a Get(PortCounters) or
 * Get(PortCountersExtended) MAD handed to process_mad() as if it came off
 * the wire, and the file shows one field of the answer, unscaled, in the
 * unit the PMA gives it (the data counters count octets divided by four).
 * Which attribute serves the traffic counters is settled once per port,
 * when its directory is made, from the agent's ClassPortInfo:
 *   - CapabilityMask.ExtWidth: data and packet counts, and the unicast
 *     and multicast packet counts, 64 bits wide from PortCountersExtended;
 *   - ExtWidth-NoIETF only: data and packet counts from the extended
 *     attribute, no unicast/multicast files;
 *   - neither (or no ClassPortInfo): everything from PortCounters.
 * The error counters always come from PortCounters.
 *
 * No state of its own; the attribute tables are constant.
 */
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/unaligned.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_sysfs.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* Which part of a counter field a file shows. */
enum pma_part {
	PMA_WHOLE,
	PMA_HIGH_NIBBLE,
	PMA_LOW_NIBBLE,
};

/*
 * One file: @len bytes at @off in the attribute @attr_id (big-endian),
 * or a nibble of the byte there.
 */
struct pma_file {
	struct ib_port_attribute pattr;
	__be16 attr_id;
	u8 off;
	u8 len;
	u8 part;
	u8 kinds;
};

/* The kinds of agent a file shows for (pma_file.kinds), by ClassPortInfo. */
enum {
	PMA_KIND_BASIC	= BIT(0),	/* neither capability */
	PMA_KIND_NOIETF	= BIT(1),	/* ExtWidth-NoIETF only */
	PMA_KIND_EXT	= BIT(2),	/* ExtWidth */
	PMA_KIND_ALL	= PMA_KIND_BASIC | PMA_KIND_NOIETF | PMA_KIND_EXT,
};

/*
 * Ask the port's agent for attribute @attr_id.  @answer (192 bytes)
 * receives the attribute part of the reply.
 */
static int pma_get(struct ib_device *ibdev, u32 port_num, __be16 attr_id,
		   u8 *answer)
{
	struct ib_pma_mad *in, *out;
	size_t out_size = sizeof(struct ib_mad);
	u16 pkey_index = 0;
	int ret;

	in = kzalloc(2 * sizeof(struct ib_mad), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	out = (struct ib_pma_mad *)((struct ib_mad *)in + 1);

	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	in->mad_hdr.attr_id = attr_id;
	/* PortSelect, the second byte of both counter attributes */
	if (attr_id != IB_PMA_CLASS_PORT_INFO)
		in->data[1] = port_num;

	ret = ibdev->ops.process_mad(ibdev, IB_MAD_IGNORE_MKEY, port_num,
				     NULL, NULL, (struct ib_mad *)in,
				     (struct ib_mad *)out, &out_size,
				     &pkey_index);
	if (!(ret & IB_MAD_RESULT_SUCCESS) || !(ret & IB_MAD_RESULT_REPLY)) {
		ibdev_dbg(ibdev, "port %u: PMA attribute 0x%x not answered (%d)\n",
			  port_num, be16_to_cpu(attr_id), ret);
		ret = -EINVAL;
	} else if (out->mad_hdr.status || out->mad_hdr.attr_id != attr_id ||
		   out->mad_hdr.method != IB_MGMT_METHOD_GET_RESP) {
		ibdev_dbg(ibdev, "port %u: PMA attribute 0x%x: status 0x%x\n",
			  port_num, be16_to_cpu(attr_id),
			  be16_to_cpu(out->mad_hdr.status));
		ret = -EINVAL;
	} else {
		memcpy(answer, out->data, sizeof(out->data));
		ret = 0;
	}
	kfree(in);
	return ret;
}

static ssize_t pma_file_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *pattr, char *buf)
{
	const struct pma_file *f = container_of(pattr, struct pma_file, pattr);
	u64 value = 0;
	u8 *data;
	int ret;

	data = kmalloc(sizeof_field(struct ib_pma_mad, data), GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	ret = pma_get(ibdev, port_num, f->attr_id, data);
	if (!ret) {
		const u8 *p = data + f->off;

		switch (f->len) {
		case 1:
			value = *p;
			break;
		case 2:
			value = get_unaligned_be16(p);
			break;
		case 4:
			value = get_unaligned_be32(p);
			break;
		default:
			value = get_unaligned_be64(p);
			break;
		}
		if (f->part == PMA_HIGH_NIBBLE)
			value >>= 4;
		if (f->part != PMA_WHOLE)
			value &= 0xf;
	}
	kfree(data);
	return ret ? ret : sysfs_emit(buf, "%llu\n", value);
}

/* A file showing @_len bytes at @_off of attribute @_id. */
#define PMA_FILE(_var, _name, _id, _off, _len, _part, _kinds)		\
	static struct pma_file _var = {					\
		.pattr = __ATTR(_name, 0444, pma_file_show, NULL),	\
		.attr_id = _id,						\
		.off = _off,						\
		.len = _len,						\
		.part = _part,						\
		.kinds = _kinds,					\
	}
/* A field of PortCounters (of @_len bytes), of PortCountersExtended. */
#define PMA_BASIC(_var, _name, _field, _len, _kinds)			\
	PMA_FILE(_var, _name, IB_PMA_PORT_COUNTERS,			\
		 offsetof(struct ib_pma_portcounters, _field), _len,	\
		 PMA_WHOLE, _kinds)
#define PMA_EXT(_var, _name, _field, _kinds)				\
	PMA_FILE(_var, _name, IB_PMA_PORT_COUNTERS_EXT,			\
		 offsetof(struct ib_pma_portcounters_ext, _field), 8,	\
		 PMA_WHOLE, _kinds)
#define PMA_NIBBLE(_var, _name, _part)					\
	PMA_FILE(_var, _name, IB_PMA_PORT_COUNTERS,			\
		 offsetof(struct ib_pma_portcounters, link_overrun_errors), 1, \
		 _part, PMA_KIND_ALL)

PMA_BASIC(pma_symbol_error, symbol_error, symbol_error_counter, 2,
	  PMA_KIND_ALL);
PMA_BASIC(pma_link_error_recovery, link_error_recovery,
	  link_error_recovery_counter, 1, PMA_KIND_ALL);
PMA_BASIC(pma_link_downed, link_downed, link_downed_counter, 1,
	  PMA_KIND_ALL);
PMA_BASIC(pma_rcv_errors, port_rcv_errors, port_rcv_errors, 2,
	  PMA_KIND_ALL);
PMA_BASIC(pma_rcv_remphys, port_rcv_remote_physical_errors,
	  port_rcv_remphys_errors, 2, PMA_KIND_ALL);
PMA_BASIC(pma_rcv_switch_relay, port_rcv_switch_relay_errors,
	  port_rcv_switch_relay_errors, 2, PMA_KIND_ALL);
PMA_BASIC(pma_xmit_discards, port_xmit_discards, port_xmit_discards, 2,
	  PMA_KIND_ALL);
PMA_BASIC(pma_xmit_constraint, port_xmit_constraint_errors,
	  port_xmit_constraint_errors, 1, PMA_KIND_ALL);
PMA_BASIC(pma_rcv_constraint, port_rcv_constraint_errors,
	  port_rcv_constraint_errors, 1, PMA_KIND_ALL);
PMA_NIBBLE(pma_local_link_integrity, local_link_integrity_errors,
	   PMA_HIGH_NIBBLE);
PMA_NIBBLE(pma_buffer_overrun, excessive_buffer_overrun_errors,
	   PMA_LOW_NIBBLE);
PMA_BASIC(pma_vl15_dropped, VL15_dropped, vl15_dropped, 2, PMA_KIND_ALL);
PMA_BASIC(pma_xmit_wait, port_xmit_wait, port_xmit_wait, 4, PMA_KIND_ALL);

/* 32-bit traffic counters, for an agent without 64-bit ones */
PMA_BASIC(pma_xmit_data, port_xmit_data, port_xmit_data, 4,
	  PMA_KIND_BASIC);
PMA_BASIC(pma_rcv_data, port_rcv_data, port_rcv_data, 4, PMA_KIND_BASIC);
PMA_BASIC(pma_xmit_packets, port_xmit_packets, port_xmit_packets, 4,
	  PMA_KIND_BASIC);
PMA_BASIC(pma_rcv_packets, port_rcv_packets, port_rcv_packets, 4,
	  PMA_KIND_BASIC);

/* the same names, 64 bits wide */
#define PMA_KIND_WIDE	(PMA_KIND_NOIETF | PMA_KIND_EXT)
PMA_EXT(pma_ext_xmit_data, port_xmit_data, port_xmit_data, PMA_KIND_WIDE);
PMA_EXT(pma_ext_rcv_data, port_rcv_data, port_rcv_data, PMA_KIND_WIDE);
PMA_EXT(pma_ext_xmit_packets, port_xmit_packets, port_xmit_packets,
	PMA_KIND_WIDE);
PMA_EXT(pma_ext_rcv_packets, port_rcv_packets, port_rcv_packets,
	PMA_KIND_WIDE);
PMA_EXT(pma_ext_uni_xmit, unicast_xmit_packets, port_unicast_xmit_packets,
	PMA_KIND_EXT);
PMA_EXT(pma_ext_uni_rcv, unicast_rcv_packets, port_unicast_rcv_packets,
	PMA_KIND_EXT);
PMA_EXT(pma_ext_multi_xmit, multicast_xmit_packets,
	port_multicast_xmit_packets, PMA_KIND_EXT);
PMA_EXT(pma_ext_multi_rcv, multicast_rcv_packets,
	port_multicast_rcv_packets, PMA_KIND_EXT);

/* Every file; a port shows those of its agent's kind (names repeat). */
static struct attribute *pma_files[] = {
	&pma_symbol_error.pattr.attr,
	&pma_link_error_recovery.pattr.attr,
	&pma_link_downed.pattr.attr,
	&pma_rcv_errors.pattr.attr,
	&pma_rcv_remphys.pattr.attr,
	&pma_rcv_switch_relay.pattr.attr,
	&pma_xmit_discards.pattr.attr,
	&pma_xmit_constraint.pattr.attr,
	&pma_rcv_constraint.pattr.attr,
	&pma_local_link_integrity.pattr.attr,
	&pma_buffer_overrun.pattr.attr,
	&pma_vl15_dropped.pattr.attr,
	&pma_xmit_wait.pattr.attr,
	&pma_xmit_data.pattr.attr,
	&pma_rcv_data.pattr.attr,
	&pma_xmit_packets.pattr.attr,
	&pma_rcv_packets.pattr.attr,
	&pma_ext_xmit_data.pattr.attr,
	&pma_ext_rcv_data.pattr.attr,
	&pma_ext_xmit_packets.pattr.attr,
	&pma_ext_rcv_packets.pattr.attr,
	&pma_ext_uni_xmit.pattr.attr,
	&pma_ext_uni_rcv.pattr.attr,
	&pma_ext_multi_xmit.pattr.attr,
	&pma_ext_multi_rcv.pattr.attr,
	NULL
};

/* The kind of agent a port has, from its ClassPortInfo. */
static u8 pma_kind(struct ib_device *ibdev, u32 port_num)
{
	struct ib_class_port_info *cpi;
	u8 kind = PMA_KIND_BASIC;

	cpi = kzalloc(sizeof_field(struct ib_pma_mad, data), GFP_KERNEL);
	if (cpi && !pma_get(ibdev, port_num, IB_PMA_CLASS_PORT_INFO,
			    (u8 *)cpi)) {
		if (cpi->capability_mask & IB_PMA_CLASS_CAP_EXT_WIDTH)
			kind = PMA_KIND_EXT;
		else if (cpi->capability_mask &
			 IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF)
			kind = PMA_KIND_NOIETF;
	}
	kfree(cpi);
	return kind;
}

/* Called per file when the directory is made: is it of the port's kind? */
static umode_t pma_file_visible(struct kobject *kobj, struct attribute *attr,
				int n)
{
	const struct pma_file *f =
		container_of(attr, struct pma_file, pattr.attr);
	struct ib_device *ibdev;
	u32 port_num;

	ibdev = ib_port_sysfs_get_ibdev_kobj(kobj, &port_num);
	return f->kinds & pma_kind(ibdev, port_num) ? attr->mode : 0;
}

static const struct attribute_group pma_group = {
	.name = "counters",
	.attrs = pma_files,
	.is_visible = pma_file_visible,
};

/**
 * ib_pma_counters_group() - the "counters" directory of a port
 * @ibdev: the device
 * @port_num: the port
 *
 * One group for every port: when the directory is made, each file asks
 * the port's PMA for its ClassPortInfo whether it is of the agent's kind
 * (see the top of this file).
 *
 * Context: any.
 * Return: the group to add to the port directory, or NULL when the
 * device has no process_mad().
 */
const struct attribute_group *ib_pma_counters_group(struct ib_device *ibdev,
						    u32 port_num)
{
	return ibdev->ops.process_mad ? &pma_group : NULL;
}
