// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: the char devices /dev/infiniband/uverbsN through which
 * libibverbs drives RDMA devices from user space.
 *
 * This file holds the module, the ib_client "uverbs" that gives every
 * device with user contexts (ops.alloc_ucontext) a class device uverbsN
 * in class infiniband_verbs, the answer to nldev's GET_CHARDEV, the
 * file operations of the char device and the delivery of the device's
 * asynchronous events.  Commands come through write() (uverbs_write.c);
 * ioctl() is not offered, so every ioctl gets -ENOTTY and libibverbs
 * falls back to write() for all of them.
 *
 * Numbers: major 231, minors 192..223 for the first 32 devices, then a
 * dynamically allocated region.  The device node is
 * /dev/infiniband/uverbsN, mode 0666.
 *
 * The structures and the removal rules are described in uverbs.h.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <net/net_namespace.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "uverbs.h"

MODULE_DESCRIPTION("RDMA user-space verbs access (write() interface)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("rdma-client-uverbs");
/* Set by the out-of-tree build (top Kbuild) from dkms.conf. */
#ifdef RDMA_KMOD_VERSION
MODULE_VERSION(RDMA_KMOD_VERSION);
#endif

#define UVERBS_MAJOR		231
#define UVERBS_FIXED_MINOR	192
#define UVERBS_FIXED_DEVICES	32
/* As many as rdma-core's RDMA_MAX_PORTS allows. */
#define UVERBS_MAX_DEVICES	8192

static dev_t uverbs_fixed_base = MKDEV(UVERBS_MAJOR, UVERBS_FIXED_MINOR);
static dev_t uverbs_dynamic_base;
static DEFINE_IDA(uverbs_ida);

static char *uverbs_devnode(const struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

/* The class's abi_version: the uverbs ABI, the same for every device. */
static CLASS_ATTR_STRING(abi_version, 0444,
			 __stringify(IB_USER_VERBS_ABI_VERSION));

/*
 * The ib_device of @udev for a reader that holds disassociate_srcu, or
 * NULL once the device is gone.
 */
static struct ib_device *uverbs_ib_dev(struct ib_uverbs_device *udev)
{
	return srcu_dereference(udev->ib_dev, &udev->disassociate_srcu);
}

static struct ib_uverbs_device *to_udev(struct device *dev)
{
	return container_of(dev, struct ib_uverbs_device, dev);
}

/*
 * The per-device files: the ib_device's name, or the provider's uverbs
 * ABI; -ENODEV once the ib_device is gone.
 */
static ssize_t uverbs_dev_show(struct device *dev, char *buf, bool abi)
{
	struct ib_uverbs_device *udev = to_udev(dev);
	struct ib_device *ib_dev;
	ssize_t len = -ENODEV;
	int idx;

	idx = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = uverbs_ib_dev(udev);
	if (ib_dev && abi)
		len = sysfs_emit(buf, "%u\n", ib_dev->ops.uverbs_abi_ver);
	else if (ib_dev)
		len = sysfs_emit(buf, "%s\n", dev_name(&ib_dev->dev));
	srcu_read_unlock(&udev->disassociate_srcu, idx);
	return len;
}

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return uverbs_dev_show(dev, buf, false);
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_dev_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return uverbs_dev_show(dev, buf, true);
}

static struct device_attribute dev_attr_abi_version =
	__ATTR(abi_version, 0444, abi_version_dev_show, NULL);

static struct attribute *uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_dev);

static const struct class uverbs_class = {
	.name		= "infiniband_verbs",
	.devnode	= uverbs_devnode,
	.dev_groups	= uverbs_dev_groups,
};

static struct ib_client uverbs_client;

/* ---- delivery of device events ------------------------------------------- */

/*
 * Port events (and a fatal device error) go to the async fd of every file
 * of the device that has one, with the port number as the element.  Object
 * events (CQ, QP, SRQ) are not the device's to deliver.
 */
static void uverbs_event_handler(struct ib_event_handler *handler,
				 struct ib_event *event)
{
	struct ib_uverbs_device *udev =
		container_of(handler, struct ib_uverbs_device, event_handler);
	struct ib_uverbs_file *ufile;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_DEVICE_FATAL:
		break;
	default:
		return;
	}

	mutex_lock(&udev->lists_mutex);
	list_for_each_entry(ufile, &udev->files, list)
		if (ufile->async)
			uverbs_async_event(ufile->async,
					   event->element.port_num,
					   event->event);
	mutex_unlock(&udev->lists_mutex);
}

/* ---- file operations ------------------------------------------------------ */

/*
 * May the current task open a file of @ib_dev (NULL: gone)?  0 with a
 * reference on the provider's module, held until the file is torn down,
 * or why not.
 */
static int uverbs_may_open(struct ib_device *ib_dev)
{
	if (!ib_dev)
		return -EIO;
	if (!rdma_dev_access_netns(ib_dev, current->nsproxy->net_ns))
		return -EPERM;
	return try_module_get(ib_dev->ops.owner) ? 0 : -ENODEV;
}

static void uverbs_ufile_release(struct kref *ref)
{
	struct ib_uverbs_file *ufile =
		container_of(ref, struct ib_uverbs_file, ref);
	struct ib_uverbs_device *udev = ufile->device;

	kfree(ufile);
	put_device(&udev->dev);
}

/*
 * Destroy what @ufile holds of its device, once: its objects and its
 * ucontext, and its reference on the provider's module.  Removal (@why
 * RDMA_REMOVE_DRIVER_REMOVE) also tells user space and takes the
 * provider's memory out of its mappings.  The device is still registered:
 * removal runs this before it returns, and a close that finds the file
 * not torn down yet runs before removal gets to the file.
 */
static void uverbs_ufile_teardown(struct ib_uverbs_file *ufile,
				  enum rdma_remove_reason why)
{
	down_write(&ufile->hw_destroy_rwsem);
	if (ufile->torn_down)
		goto out;
	if (why == RDMA_REMOVE_DRIVER_REMOVE) {
		if (ufile->async)
			uverbs_async_device_fatal(ufile->async);
		uverbs_umaps_disassociate(ufile);
	}
	if (ufile->ucontext) {
		uverbs_destroy_ufile(ufile, why);
		uverbs_ucontext_destroy(ufile->ucontext);
		ufile->ucontext = NULL;
	}
	module_put(ufile->ib_dev->ops.owner);
	ufile->torn_down = true;
out:
	up_write(&ufile->hw_destroy_rwsem);
}

static int ib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_device *udev =
		container_of(inode->i_cdev, struct ib_uverbs_device, cdev);
	struct ib_uverbs_file *ufile;
	struct ib_device *ib_dev;
	int idx, ret;

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL);
	if (!ufile)
		return -ENOMEM;
	/* Removal waits out this section, then tears down what it added. */
	idx = srcu_read_lock(&udev->disassociate_srcu);
	ib_dev = uverbs_ib_dev(udev);
	ret = uverbs_may_open(ib_dev);
	if (!ret) {
		kref_init(&ufile->ref);
		ufile->device = udev;
		get_device(&udev->dev);
		ufile->ib_dev = ib_dev;
		ufile->mapping = filp->f_mapping;
		init_rwsem(&ufile->hw_destroy_rwsem);
		mutex_init(&ufile->ucontext_lock);
		uverbs_uobjects_init(ufile);
		mutex_init(&ufile->umap_mutex);
		INIT_LIST_HEAD(&ufile->umaps);
		filp->private_data = ufile;
		mutex_lock(&udev->lists_mutex);
		list_add_tail(&ufile->list, &udev->files);
		mutex_unlock(&udev->lists_mutex);
	}
	srcu_read_unlock(&udev->disassociate_srcu, idx);
	if (ret) {
		kfree(ufile);
		return ret;
	}
	return stream_open(inode, filp);
}

static int ib_uverbs_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;

	uverbs_ufile_teardown(ufile, RDMA_REMOVE_CLOSE);
	/* No more events: the async file stays readable for what it has. */
	mutex_lock(&udev->lists_mutex);
	list_del_init(&ufile->list);
	mutex_unlock(&udev->lists_mutex);
	if (ufile->async)
		uverbs_async_file_put(ufile->async);
	kref_put(&ufile->ref, uverbs_ufile_release);
	return 0;
}

static int ib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;
	struct ib_ucontext *ucontext;
	int srcu_key, ret;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	if (!uverbs_ib_dev(udev)) {
		ret = -EIO;
		goto out;
	}
	down_read(&ufile->hw_destroy_rwsem);
	/* Pairs with GET_CONTEXT's release: a context seen is complete. */
	ucontext = smp_load_acquire(&ufile->ucontext);
	ret = ucontext ? uverbs_mmap(ufile, ucontext, vma) : -ENODEV;
	up_read(&ufile->hw_destroy_rwsem);
out:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

/* ---- the ib_client ----------------------------------------------------- */

/*
 * GET_CHARDEV for "uverbs": the device's uverbsN (one per device, none
 * per port) and the provider's ABI, plus its driver id, by which
 * libibverbs picks the provider library, unless the provider opted out.
 */
static int uverbs_client_nl_info(struct ib_device *ib_dev, void *client_data,
				 struct ib_client_nl_info *res)
{
	const struct ib_device_ops *ops = &ib_dev->ops;
	struct ib_uverbs_device *udev = client_data;

	if (res->port != -1)
		return -EINVAL;
	if (!ops->uverbs_no_driver_id_binding &&
	    nla_put_u32(res->nl_msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
			ops->driver_id))
		return -EMSGSIZE;
	res->cdev = get_device(&udev->dev);
	res->abi = ops->uverbs_abi_ver;
	return 0;
}

static void uverbs_dev_release(struct device *dev)
{
	struct ib_uverbs_device *udev = to_udev(dev);

	cleanup_srcu_struct(&udev->disassociate_srcu);
	mutex_destroy(&udev->lists_mutex);
	ida_free(&uverbs_ida, udev->devnum);
	kfree(udev);
}

static dev_t uverbs_devt(int devnum)
{
	if (devnum < UVERBS_FIXED_DEVICES)
		return uverbs_fixed_base + devnum;
	return uverbs_dynamic_base + devnum - UVERBS_FIXED_DEVICES;
}

/*
 * No ioctl(): the VFS answers -ENOTTY.  mmap() fails with -ENODEV on a
 * device whose provider maps nothing (no ops.mmap).
 */
static const struct file_operations uverbs_fops = {
	.open		= ib_uverbs_open,
	.release	= ib_uverbs_close,
	.mmap		= ib_uverbs_mmap,
	.write		= ib_uverbs_write,
	.owner		= THIS_MODULE,
};

static int uverbs_client_add(struct ib_device *ib_dev)
{
	struct ib_uverbs_device *udev;
	int devnum, ret;

	/* No user contexts, no user verbs. */
	if (!ib_dev->ops.alloc_ucontext)
		return -EOPNOTSUPP;

	devnum = ida_alloc_max(&uverbs_ida, UVERBS_MAX_DEVICES - 1, GFP_KERNEL);
	if (devnum < 0)
		return devnum;
	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	ret = udev ? init_srcu_struct(&udev->disassociate_srcu) : -ENOMEM;
	if (ret) {
		kfree(udev);
		ida_free(&uverbs_ida, devnum);
		return ret;
	}
	udev->devnum = devnum;
	rcu_assign_pointer(udev->ib_dev, ib_dev);
	mutex_init(&udev->lists_mutex);
	INIT_LIST_HEAD(&udev->files);

	/* From here on uverbs_dev_release() undoes all of the above. */
	device_initialize(&udev->dev);
	udev->dev.class = &uverbs_class;
	udev->dev.parent = ib_dev->dev.parent;
	udev->dev.devt = uverbs_devt(udev->devnum);
	udev->dev.release = uverbs_dev_release;
	ret = dev_set_name(&udev->dev, "uverbs%d", udev->devnum);
	if (ret)
		goto err_put;

	cdev_init(&udev->cdev, &uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err_put;

	INIT_IB_EVENT_HANDLER(&udev->event_handler, ib_dev,
			      uverbs_event_handler);
	ib_register_event_handler(&udev->event_handler);
	ib_set_client_data(ib_dev, &uverbs_client, udev);
	return 0;

err_put:
	put_device(&udev->dev);
	return ret;
}

/*
 * Removal's next file: off the device's list, with a reference; NULL
 * once every file has been taken.
 */
static struct ib_uverbs_file *uverbs_take_file(struct ib_uverbs_device *udev)
{
	struct ib_uverbs_file *ufile;

	mutex_lock(&udev->lists_mutex);
	ufile = list_first_entry_or_null(&udev->files, struct ib_uverbs_file,
					 list);
	if (ufile) {
		list_del_init(&ufile->list);
		kref_get(&ufile->ref);
	}
	mutex_unlock(&udev->lists_mutex);
	return ufile;
}

/*
 * The device is going: disassociate its files (see uverbs.h).  Returns
 * without waiting for user space; the files, their event files and their
 * mappings live on, without the device, until user space lets go.
 */
static void uverbs_client_remove(struct ib_device *ib_dev, void *client_data)
{
	struct ib_uverbs_device *udev = client_data;
	struct ib_uverbs_file *ufile;

	cdev_device_del(&udev->cdev, &udev->dev);
	ib_unregister_event_handler(&udev->event_handler);
	rcu_assign_pointer(udev->ib_dev, NULL);
	synchronize_srcu(&udev->disassociate_srcu);

	while ((ufile = uverbs_take_file(udev))) {
		uverbs_ufile_teardown(ufile, RDMA_REMOVE_DRIVER_REMOVE);
		kref_put(&ufile->ref, uverbs_ufile_release);
	}
	put_device(&udev->dev);
}

/* Also on devices without kernel verbs: user space may still use them. */
static struct ib_client uverbs_client = {
	.add		= uverbs_client_add,
	.get_nl_info	= uverbs_client_nl_info,
	.remove		= uverbs_client_remove,
	.no_kverbs_req	= true,
	.name		= "uverbs",
};

static int __init ib_uverbs_init(void)
{
	int ret;

	ret = register_chrdev_region(uverbs_fixed_base, UVERBS_FIXED_DEVICES,
				     "infiniband_verbs");
	if (ret) {
		pr_err("ib_uverbs: cannot reserve %d:%d..%d: %d\n",
		       UVERBS_MAJOR, UVERBS_FIXED_MINOR,
		       UVERBS_FIXED_MINOR + UVERBS_FIXED_DEVICES - 1, ret);
		return ret;
	}
	ret = alloc_chrdev_region(&uverbs_dynamic_base, 0,
				  UVERBS_MAX_DEVICES - UVERBS_FIXED_DEVICES,
				  "infiniband_verbs");
	if (ret) {
		pr_err("ib_uverbs: cannot allocate a dynamic region: %d\n", ret);
		goto err_fixed;
	}
	ret = class_register(&uverbs_class);
	if (ret) {
		pr_err("ib_uverbs: cannot register class infiniband_verbs: %d\n",
		       ret);
		goto err_dynamic;
	}
	ret = class_create_file(&uverbs_class, &class_attr_abi_version.attr);
	if (ret) {
		pr_err("ib_uverbs: cannot create the class's abi_version: %d\n",
		       ret);
		goto err_class;
	}
	ret = ib_register_client(&uverbs_client);
	if (ret) {
		pr_err("ib_uverbs: cannot register client: %d\n", ret);
		goto err_class;
	}
	return 0;

err_class:
	class_unregister(&uverbs_class);
err_dynamic:
	unregister_chrdev_region(uverbs_dynamic_base,
				 UVERBS_MAX_DEVICES - UVERBS_FIXED_DEVICES);
err_fixed:
	unregister_chrdev_region(uverbs_fixed_base, UVERBS_FIXED_DEVICES);
	return ret;
}

static void __exit ib_uverbs_exit(void)
{
	ib_unregister_client(&uverbs_client);
	class_unregister(&uverbs_class);
	unregister_chrdev_region(uverbs_dynamic_base,
				 UVERBS_MAX_DEVICES - UVERBS_FIXED_DEVICES);
	unregister_chrdev_region(uverbs_fixed_base, UVERBS_FIXED_DEVICES);
	ida_destroy(&uverbs_ida);
}

module_init(ib_uverbs_init);
module_exit(ib_uverbs_exit);
