// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: pinning the tracer's buffer pages, charging them to the
 * tracer, and mapping them into the kernel.
 *
 * The buffer stays where the tracer put it, so the tracer reads records
 * with no copy.  Pinning is long-term (FOLL_LONGTERM) and charged to the
 * tracer's user against RLIMIT_MEMLOCK (charge.c): the limit bounds what an
 * unprivileged tracer can hold, across every session and exec of it.  Only
 * memory that is nothing but memory is taken: private anonymous pages or a
 * regular file of shmem (a memfd, shared anonymous memory); no device, not
 * even /dev/zero.  A file on disk would have its page cache pinned under writeback, which
 * 6.1's pinning does not refuse by itself, so the mappings are checked here.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ptbts.h"

/* Pages pinned by every session together; sysfs shows it. */
static atomic_long_t ptbts_nr_pinned = ATOMIC_LONG_INIT(0);

/*
 * A page array past INT_MAX bytes would make kvmalloc() warn; no buffer
 * needs a terabyte.
 */
#define PTBTS_MAX_PAGES	(INT_MAX / sizeof(struct page *))

/*
 * Plain memory: private anonymous pages, or a shmem file (a memfd, shared
 * anonymous memory, a file of tmpfs).  A private mapping of /dev/zero is
 * anonymous to the mm but maps a device file, whose inode devtmpfs keeps
 * in shmem: only a regular file of shmem is shmem's memory.
 */
static bool ptbts_vma_is_memory(struct vm_area_struct *vma)
{
	struct file *file = vma->vm_file;

	if (!file)
		return vma_is_anonymous(vma);
	return S_ISREG(file_inode(file)->i_mode) && shmem_file(file);
}

/*
 * -EFAULT for a hole, -EOPNOTSUPP for memory that is not plain memory,
 * -EACCES for memory the tracer cannot write.
 */
static int ptbts_check_vma(struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP))
		return -EOPNOTSUPP;
	if (!ptbts_vma_is_memory(vma))
		return -EOPNOTSUPP;
	if (!(vma->vm_flags & VM_WRITE))
		return -EACCES;
	return 0;
}

static int ptbts_check_vmas(struct mm_struct *mm, unsigned long start,
			    unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr;
	int err;

	mmap_assert_locked(mm);
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start > addr)
			return -EFAULT;
		err = ptbts_check_vma(vma);
		if (err)
			return err;
	}
	return 0;
}

/* pin_user_pages() may pin fewer pages than asked: ask again for the rest. */
static int ptbts_pin_range(unsigned long start, unsigned long nr,
			   struct page **pages)
{
	unsigned long done = 0;
	long n;

	while (done < nr) {
		n = pin_user_pages(start + done * PAGE_SIZE, nr - done,
				   FOLL_WRITE | FOLL_LONGTERM, pages + done,
				   NULL);
		if (n <= 0) {
			unpin_user_pages(pages, done);
			return n ? n : -EFAULT;
		}
		done += n;
	}
	return 0;
}

/* The mappings must not change between their check and the pinning. */
static int ptbts_pin_checked(struct mm_struct *mm, unsigned long start,
			     unsigned long nr, struct page **pages)
{
	int err;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	err = ptbts_check_vmas(mm, start, start + nr * PAGE_SIZE);
	if (!err)
		err = ptbts_pin_range(start, nr, pages);
	mmap_read_unlock(mm);
	return err;
}

/* The page array: at most PTBTS_MAX_PAGES entries, so no warning. */
static struct page **ptbts_pages_alloc(unsigned long nr)
{
	return kvmalloc_array(nr, sizeof(struct page *),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

/* Pins, checks and maps; @buf->owner is charged for @buf->nr_pages. */
static int ptbts_buf_map(struct ptbts_buf *buf, unsigned long start)
{
	unsigned long nr = buf->nr_pages;
	int err;

	buf->pages = ptbts_pages_alloc(nr);
	if (!buf->pages)
		return -ENOMEM;
	err = ptbts_pin_checked(current->mm, start, nr, buf->pages);
	if (err)
		goto free_pages;
	buf->vaddr = vmap(buf->pages, nr, VM_MAP, PAGE_KERNEL);
	err = -ENOMEM;
	if (!buf->vaddr)
		goto unpin;
	return 0;

unpin:
	unpin_user_pages(buf->pages, nr);
free_pages:
	kvfree(buf->pages);
	return err;
}

/**
 * ptbts_buf_pin() - pin, charge and map a buffer of the caller's memory
 * @out:   the new buffer
 * @start: user address, page-aligned
 * @size:  bytes, a non-zero multiple of the page size
 *
 * The limit is checked before anything is allocated: a request past it
 * costs the kernel nothing, however large (charge.c says who pays).
 *
 * Return: 0; -ENOMEM past RLIMIT_MEMLOCK (without CAP_IPC_LOCK) or when
 * memory runs out; -EFAULT when part of the range is not mapped;
 * -EOPNOTSUPP for a mapping of a file (other than shmem) or of a device;
 * -EACCES for a mapping the caller cannot write; -EINTR when killed.
 */
int ptbts_buf_pin(struct ptbts_buf **out, unsigned long start,
		  unsigned long size)
{
	unsigned long nr = size >> PAGE_SHIFT;
	struct ptbts_owner owner;
	struct ptbts_buf *buf;
	int err;

	if (!current->mm)
		return -EFAULT;
	if (nr > PTBTS_MAX_PAGES)
		return -ENOMEM;
	ptbts_owner_get(&owner);
	err = ptbts_owner_charge(&owner, nr);
	if (err)
		goto put_owner;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	err = -ENOMEM;
	if (!buf)
		goto uncharge;
	buf->nr_pages = nr;
	buf->owner = owner;
	err = ptbts_buf_map(buf, start);
	if (err)
		goto free_buf;
	atomic_long_add(nr, &ptbts_nr_pinned);
	*out = buf;
	return 0;

free_buf:
	kfree(buf);
uncharge:
	ptbts_owner_uncharge(&owner, nr);
put_owner:
	ptbts_owner_put(&owner);
	return err;
}

/**
 * ptbts_buf_release() - unmap, unpin and uncharge a buffer, and free it
 * @buf: from ptbts_buf_pin(); no source may write into it any more
 *
 * Sleeps.  The pages are marked dirty: the kernel wrote records into them.
 */
void ptbts_buf_release(struct ptbts_buf *buf)
{
	vunmap(buf->vaddr);
	unpin_user_pages_dirty_lock(buf->pages, buf->nr_pages, true);
	ptbts_owner_uncharge(&buf->owner, buf->nr_pages);
	ptbts_owner_put(&buf->owner);
	atomic_long_sub(buf->nr_pages, &ptbts_nr_pinned);
	kvfree(buf->pages);
	kfree(buf);
}

/**
 * ptbts_pinned_pages() - pages pinned now by every session together
 *
 * Return: the count.
 */
long ptbts_pinned_pages(void)
{
	return atomic_long_read(&ptbts_nr_pinned);
}
