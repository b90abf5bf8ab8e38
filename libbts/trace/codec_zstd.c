// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * zstd for compact record chunks: one frame per chunk, with its content
 * size and a checksum, so that a damaged chunk is refused rather than
 * decoded into other records.  Contexts are kept for the life of a writer
 * or trace: making one per chunk would cost more than the chunk.
 */
#include <stdlib.h>
#include <zstd.h>

#include "trace/codec.h"

/*
 * Level 3 (zstd's default) compressed the bench workloads' records to the
 * same size as 9 within a few percent, at three times the speed.
 */
#define BTS_ZSTD_LEVEL	3

/* RFC 8878 3.1.1.1.1: Frame_Header_Descriptor, bit 4 "Unused". */
#define ZSTD_FHD_UNUSED	0x10

struct bts_zstd {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
};

struct bts_zstd *bts_zstd_new(void)
{
	return calloc(1, sizeof(struct bts_zstd));
}

void bts_zstd_free(struct bts_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->c);
	ZSTD_freeDCtx(z->d);
	free(z);
}

size_t bts_zstd_bound(size_t len)
{
	return ZSTD_compressBound(len);
}

static int make_cctx(struct bts_zstd *z)
{
	if (z->c)
		return 0;
	z->c = ZSTD_createCCtx();
	if (!z->c)
		return bts_fail(BTS_E_NOMEM, "zstd compression context");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_compressionLevel,
						BTS_ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_contentSizeFlag, 1)))
		return bts_fail(BTS_E_NOMEM, "zstd compression parameters");
	return 0;
}

long bts_zstd_pack(struct bts_zstd *z, const void *in, size_t len, void *out,
		   size_t cap)
{
	size_t n;
	int err = make_cctx(z);

	if (err)
		return err;
	n = ZSTD_compress2(z->c, out, cap, in, len);
	if (ZSTD_isError(n))
		return bts_fail(BTS_E_NOMEM, "zstd: %s", ZSTD_getErrorName(n));
	return (long)n;
}

const char *bts_zstd_unpack(struct bts_zstd *z, const void *in, size_t len,
			    void *out, size_t want)
{
	size_t n;

	if (!z->d) {
		z->d = ZSTD_createDCtx();
		if (!z->d)
			return "no memory for a zstd context";
	}
	/* One frame, nothing after it: trailing bytes would go unchecked. */
	if (ZSTD_findFrameCompressedSize(in, len) != len)
		return "the compressed data is not one whole zstd frame";
	/*
	 * The one header bit zstd ignores: the writer never sets it, and a
	 * damaged chunk must not read as a good one.
	 */
	if (((const uint8_t *)in)[4] & ZSTD_FHD_UNUSED)
		return "the zstd frame header has a bit set that the writer never sets";
	if (ZSTD_getFrameContentSize(in, len) != want)
		return "the compressed data does not hold the size the chunk says";
	n = ZSTD_decompressDCtx(z->d, out, want, in, len);
	if (ZSTD_isError(n))
		return ZSTD_getErrorName(n);
	return n == want ? NULL : "the compressed data is short";
}
