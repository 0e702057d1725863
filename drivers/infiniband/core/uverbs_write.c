// SPDX-License-Identifier: GPL-2.0
/*
 * The write() transport of ib_uverbs: one command per write(), as
 * libibverbs' cmd_write.h frames it.
 *
 * Every buffer starts with struct ib_uverbs_cmd_hdr.  The low 8 bits of
 * its command are the command number, bit 31 marks an extended command;
 * any other bit is -EINVAL.  An unknown command, or one this kernel does
 * not implement, is -EOPNOTSUPP: libibverbs and pyverbs take exactly that
 * value for "not supported" and fall back or skip.
 *
 * Legacy commands: in_words counts the 4-byte words of the whole buffer,
 * header included, and must match the write() size (-EINVAL).  The core
 * request follows the header; for a command with a response it starts
 * with the u64 user address of the response.  out_words counts the 4-byte
 * words of the core response plus the driver's, which follows the core
 * response.  Driver request bytes follow the core request.  A buffer too
 * short for the core request, or a response too short for the core
 * response, is -ENOSPC.
 *
 * Extended commands: struct ib_uverbs_ex_cmd_hdr follows, with the
 * response address and the driver's word counts; in_words and out_words
 * count 8-byte words of the core request and response alone.  The words
 * must add up to the write() size and cmd_hdr_reserved must be 0 (-EINVAL);
 * a response address needs response words and the other way round
 * (-EINVAL); a core request shorter than the command's, or a response
 * shorter than its minimum, is -ENOSPC.  Request bytes beyond what this kernel knows must
 * be zero (-EOPNOTSUPP); the response is cut to what user space made room
 * for, and room beyond what the kernel writes is zeroed.
 *
 * Then: a write() from a task whose credentials are not the opener's is
 * -EACCES (a descriptor passed to another user, or to a setuid program,
 * must not act for its opener; a forked child of the opener may); every
 * command but GET_CONTEXT needs the file's context (-EINVAL), and a
 * second GET_CONTEXT is -EINVAL.  A command runs inside
 * the device's disassociate_srcu read side and with the file's
 * hw_destroy_rwsem held for reading (see uverbs.h).  Success returns the
 * write() size.
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_verbs.h>

#include "uverbs.h"

static const struct uverbs_write_cmd *uverbs_cmd_of(u32 command)
{
	u32 nr = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct uverbs_write_cmd *cmd = NULL;

	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		if (nr < uverbs_ex_ncmds)
			cmd = &uverbs_ex_cmds[nr];
	} else if (nr < uverbs_legacy_ncmds) {
		cmd = &uverbs_legacy_cmds[nr];
	}
	return cmd && cmd->handler ? cmd : NULL;
}

static int uverbs_legacy_frame(const struct uverbs_write_cmd *cmd,
			       const struct ib_uverbs_cmd_hdr *hdr,
			       const char __user *buf, size_t count,
			       struct uverbs_attr_bundle *attrs)
{
	size_t in_len = count - sizeof(*hdr);
	size_t out_len = (size_t)hdr->out_words * 4;
	u64 response;

	if ((size_t)hdr->in_words * 4 != count)
		return -EINVAL;
	if (in_len < cmd->req_size)
		return -ENOSPC;
	if (out_len < cmd->resp_size)
		return -ENOSPC;

	attrs->core_in = buf + sizeof(*hdr);
	attrs->core_in_len = cmd->req_size;
	if (cmd->resp_size) {
		if (get_user(response, (const u64 __user *)attrs->core_in))
			return -EFAULT;
		attrs->core_out = u64_to_user_ptr(response);
		attrs->core_out_len = cmd->resp_size;
	}
	if (cmd->udata) {
		attrs->driver_udata.inbuf = attrs->core_in + cmd->req_size;
		attrs->driver_udata.inlen = in_len - cmd->req_size;
		if (cmd->resp_size) {
			attrs->driver_udata.outbuf =
				attrs->core_out + cmd->resp_size;
			attrs->driver_udata.outlen = out_len - cmd->resp_size;
		}
	}
	return 0;
}

static int uverbs_ex_frame(const struct uverbs_write_cmd *cmd,
			   const struct ib_uverbs_cmd_hdr *hdr,
			   const char __user *buf, size_t count,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
	size_t headers = sizeof(*hdr) + sizeof(ex_hdr);
	size_t in_len = (size_t)hdr->in_words * 8;
	size_t out_len = (size_t)hdr->out_words * 8;

	if (count < headers)
		return -EINVAL;
	if (copy_from_user(&ex_hdr, buf + sizeof(*hdr), sizeof(ex_hdr)))
		return -EFAULT;
	if (ex_hdr.cmd_hdr_reserved)
		return -EINVAL;
	if (in_len + (size_t)ex_hdr.provider_in_words * 8 != count - headers)
		return -EINVAL;
	if (ex_hdr.response) {
		if (!hdr->out_words && !ex_hdr.provider_out_words)
			return -EINVAL;
	} else if (hdr->out_words || ex_hdr.provider_out_words) {
		return -EINVAL;
	}
	if (in_len < cmd->req_size || out_len < cmd->resp_size)
		return -ENOSPC;

	attrs->core_in = buf + headers;
	attrs->core_in_len = in_len;
	attrs->core_out = u64_to_user_ptr(ex_hdr.response);
	attrs->core_out_len = out_len;
	attrs->driver_udata.inbuf = attrs->core_in + in_len;
	attrs->driver_udata.inlen = (size_t)ex_hdr.provider_in_words * 8;
	attrs->driver_udata.outbuf = attrs->core_out + out_len;
	attrs->driver_udata.outlen = (size_t)ex_hdr.provider_out_words * 8;
	return 0;
}

/**
 * uverbs_request() - read the core request of a command
 * @attrs: the command
 * @req: kernel copy of the request
 * @len: its size; what user space did not send reads as zero
 *
 * Return: 0; -EFAULT; -EOPNOTSUPP if user space sent non-zero bytes
 * beyond @len (fields this kernel does not know).
 */
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req, size_t len)
{
	size_t n = min(len, attrs->core_in_len);

	if (copy_from_user(req, attrs->core_in, n))
		return -EFAULT;
	memset(req + n, 0, len - n);
	if (attrs->core_in_len > len &&
	    !ib_is_buffer_cleared(attrs->core_in + len,
				  attrs->core_in_len - len))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * uverbs_response() - write the core response of a command
 * @attrs: the command
 * @resp: the response
 * @len: its size
 *
 * Writes as much as user space made room for and zeroes the rest of that
 * room.
 *
 * Return: 0, or -EFAULT.
 */
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t len)
{
	size_t n = min(len, attrs->core_out_len);

	if (copy_to_user(attrs->core_out, resp, n))
		return -EFAULT;
	if (attrs->core_out_len > n &&
	    clear_user(attrs->core_out + n, attrs->core_out_len - n))
		return -EFAULT;
	return 0;
}

/*
 * May @now act on a file opened with @opener's credentials?  The same
 * credentials, or a copy with the same identities, groups and effective
 * capabilities (a forked child has a copy); a setuid program handed the
 * file, for one, may not.
 */
static bool uverbs_same_creds(const struct cred *opener,
			      const struct cred *now)
{
	if (opener == now)
		return true;
	return opener->user_ns == now->user_ns &&
	       uid_eq(opener->uid, now->uid) &&
	       uid_eq(opener->euid, now->euid) &&
	       uid_eq(opener->suid, now->suid) &&
	       uid_eq(opener->fsuid, now->fsuid) &&
	       gid_eq(opener->gid, now->gid) &&
	       gid_eq(opener->egid, now->egid) &&
	       gid_eq(opener->sgid, now->sgid) &&
	       gid_eq(opener->fsgid, now->fsgid) &&
	       opener->group_info == now->group_info &&
	       cap_isidentical(opener->cap_effective, now->cap_effective);
}

static int uverbs_run(const struct uverbs_write_cmd *cmd,
		      struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_device *udev = ufile->device;
	int srcu_key, ret;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	attrs->ib_dev = srcu_dereference(udev->ib_dev,
					 &udev->disassociate_srcu);
	if (!attrs->ib_dev) {
		ret = -EIO;
		goto out;
	}
	down_read(&ufile->hw_destroy_rwsem);
	/* Pairs with GET_CONTEXT's release: a context seen is complete. */
	attrs->context = smp_load_acquire(&ufile->ucontext);
	if (!attrs->context && !cmd->no_context) {
		ibdev_dbg(attrs->ib_dev,
			  "uverbs: command before GET_CONTEXT refused\n");
		ret = -EINVAL;
	} else {
		ret = cmd->handler(attrs);
	}
	up_read(&ufile->hw_destroy_rwsem);
out:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

/**
 * ib_uverbs_write() - write() of a uverbs char device: run one command
 * @filp: the file
 * @buf: the command, framed as described at the top of this file
 * @count: its size
 * @pos: unused (a stream)
 *
 * Context: process context; sleeps.
 * Return: @count on success, else a negative errno.
 */
ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			size_t count, loff_t *pos)
{
	struct uverbs_attr_bundle attrs = { .ufile = filp->private_data };
	const struct uverbs_write_cmd *cmd;
	struct ib_uverbs_cmd_hdr hdr;
	int ret;

	if (!uverbs_same_creds(filp->f_cred, current_cred())) {
		pr_debug("ib_uverbs: %s[%d]: write with other credentials than the opener's\n",
			 current->comm, task_pid_nr(current));
		return -EACCES;
	}
	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.command & ~(u32)(IB_USER_VERBS_CMD_COMMAND_MASK |
				 IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return -EINVAL;

	cmd = uverbs_cmd_of(hdr.command);
	if (!cmd) {
		pr_debug("ib_uverbs: command %#x not supported\n", hdr.command);
		return -EOPNOTSUPP;
	}
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		ret = uverbs_ex_frame(cmd, &hdr, buf, count, &attrs);
	else
		ret = uverbs_legacy_frame(cmd, &hdr, buf, count, &attrs);
	if (ret)
		return ret;

	ret = uverbs_run(cmd, &attrs);
	return ret ? ret : count;
}
