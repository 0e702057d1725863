/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a uverbs command hands a provider besides its verb's arguments.
 * Providers reach their driver data through &attrs->driver_udata; the
 * other members belong to ib_uverbs.
 */
#ifndef _UVERBS_IOCTL_
#define _UVERBS_IOCTL_

#include <rdma/ib_verbs.h>

/**
 * struct uverbs_attr_bundle - one command on its way through the layers
 * @ufile: the file written to
 * @ib_dev: the device, valid for the whole command
 * @context: the file's ucontext (NULL only for GET_CONTEXT)
 * @core_in: user address of the core request (after the headers)
 * @core_in_len: its length in bytes
 * @core_out: user address of the core response (0: none)
 * @core_out_len: bytes user space made room for
 * @driver_udata: the provider's request and response buffers
 */
struct uverbs_attr_bundle {
	struct ib_uverbs_file		*ufile;
	struct ib_device		*ib_dev;
	struct ib_ucontext		*context;
	const void __user		*core_in;
	size_t				core_in_len;
	void __user			*core_out;
	size_t				core_out_len;
	struct ib_udata			driver_udata;
};

/**
 * rdma_udata_to_ucontext() - the ucontext of the command behind a udata
 * @udata: the driver data a provider verb was given, or NULL (a kernel
 *	caller)
 *
 * The driver data of a user command lives in the command's bundle, and so
 * does the file's ucontext.
 *
 * Return: the ucontext, or NULL for a kernel caller.
 */
static inline struct ib_ucontext *rdma_udata_to_ucontext(struct ib_udata *udata)
{
	if (!udata)
		return NULL;
	return container_of(udata, struct uverbs_attr_bundle,
			    driver_udata)->context;
}

/**
 * rdma_udata_to_drv_context() - the provider's ucontext behind a udata
 * @udata: as for rdma_udata_to_ucontext()
 * @drv_dev_struct: the provider's ucontext type, embedding struct
 *	ib_ucontext
 * @member: the name of that embedded member
 */
#define rdma_udata_to_drv_context(udata, drv_dev_struct, member)	\
	({								\
		struct ib_ucontext *__uc = rdma_udata_to_ucontext(udata); \
									\
		__uc ? container_of(__uc, drv_dev_struct, member) : NULL; \
	})

#endif /* _UVERBS_IOCTL_ */
