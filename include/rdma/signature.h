/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Signature (T10 protection information) offload types: how a signature MR
 * describes the protection fields of the memory side and of the wire side,
 * and how a failed check is reported back through ib_check_mr_status().
 */
#ifndef _RDMA_SIGNATURE_H_
#define _RDMA_SIGNATURE_H_

#include <linux/bits.h>
#include <linux/types.h>

/* T10-DIF protection types a device can check (ib_device_attr.sig_prot_cap). */
enum ib_signature_prot_cap {
	IB_PROT_T10DIF_TYPE_1 = BIT(0),
	IB_PROT_T10DIF_TYPE_2 = BIT(1),
	IB_PROT_T10DIF_TYPE_3 = BIT(2),
};

/* Guard tag algorithms a device supports (ib_device_attr.sig_guard_cap). */
enum ib_signature_guard_cap {
	IB_GUARD_T10DIF_CRC	= BIT(0),
	IB_GUARD_T10DIF_CSUM	= BIT(1),
};

/* Whether a domain carries protection information at all. */
enum ib_signature_type {
	IB_SIG_TYPE_NONE,
	IB_SIG_TYPE_T10_DIF,
};

/* Guard tag computation: the T10 CRC16 or the IP checksum. */
enum ib_t10_dif_bg_type {
	IB_T10DIF_CRC,
	IB_T10DIF_CSUM,
};

/**
 * struct ib_t10_dif_domain - T10-DIF parameters of one domain
 * @bg_type: how the guard tag is computed
 * @pi_interval: bytes of data covered by one protection tuple
 * @bg: initial guard value
 * @app_tag: application tag to insert or expect
 * @ref_tag: initial reference tag
 * @ref_remap: advance the reference tag from one interval to the next
 * @app_escape: an application tag of 0xffff disables the checks
 * @ref_escape: a reference tag of 0xffffffff (with app 0xffff) disables them
 * @apptag_check_mask: which application tag bits are compared
 */
struct ib_t10_dif_domain {
	enum ib_t10_dif_bg_type bg_type;
	u16			pi_interval;
	u16			bg;
	u16			app_tag;
	u32			ref_tag;
	bool			ref_remap;
	bool			app_escape;
	bool			ref_escape;
	u16			apptag_check_mask;
};

/**
 * struct ib_sig_domain - protection format of the memory or the wire side
 * @sig_type: the format
 * @sig: its parameters (only T10-DIF exists)
 * @sig.dif: T10-DIF parameters
 */
struct ib_sig_domain {
	enum ib_signature_type sig_type;
	union {
		struct ib_t10_dif_domain dif;
	} sig;
};

/**
 * struct ib_sig_attrs - what a signature MR checks and converts
 * @check_mask: IB_SIG_CHECK_* bits of the tuple bytes to verify
 * @mem: format in memory
 * @wire: format on the wire
 * @meta_length: bytes of metadata per protection interval
 */
struct ib_sig_attrs {
	u8			check_mask;
	struct ib_sig_domain	mem;
	struct ib_sig_domain	wire;
	int			meta_length;
};

/* Which part of the protection tuple failed verification. */
enum ib_sig_err_type {
	IB_SIG_BAD_GUARD,
	IB_SIG_BAD_REFTAG,
	IB_SIG_BAD_APPTAG,
};

/* Byte masks of the 8-byte tuple for ib_sig_attrs.check_mask. */
enum {
	IB_SIG_CHECK_GUARD = 0xc0,
	IB_SIG_CHECK_APPTAG = 0x30,
	IB_SIG_CHECK_REFTAG = 0x0f,
};

/**
 * struct ib_sig_err - details of a failed signature check
 * @err_type: which tag failed
 * @expected: value the device expected
 * @actual: value it found
 * @sig_err_offset: byte offset of the failing block
 * @key: key of the MR that saw the error
 */
struct ib_sig_err {
	enum ib_sig_err_type	err_type;
	u32			expected;
	u32			actual;
	u64			sig_err_offset;
	u32			key;
};

#endif /* _RDMA_SIGNATURE_H_ */
