//! The only place raw pointers become Rust references, and where results
//! become status numbers.
//!
//! Every exported function is `run(|| ...)` over a body returning
//! [`Status`]; core errors convert into their stable numbers with `?`. No
//! exported function can reach a panic (the `panic_free` test links the
//! library with a panic handler that references an undefined symbol), so
//! there is nothing to catch: the crate is `no_std` and carries no unwinder.

use crate::status::{
    self, sketch_status, SKETCH_INVALID_ARGUMENT, SKETCH_INVALID_PARAMETER, SKETCH_MISALIGNED,
};
use crate::status::{SKETCH_NULL_POINTER, SKETCH_OK, SKETCH_OVERLAP};
use core::ffi::c_void;
use sketches_core::hash::{self, HashKind, KeyHasher};

/// A byte string passed from C: pointer and length. `ptr` may be NULL only
/// when `len` is 0.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sketch_slice {
    /// First byte (NULL allowed when `len` is 0).
    pub ptr: *const c_void,
    /// Number of bytes.
    pub len: usize,
}

/// The status of a failed call (never `SKETCH_OK`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fail(pub(crate) sketch_status);

impl From<sketches_core::Error> for Fail {
    #[inline]
    fn from(e: sketches_core::Error) -> Self {
        Fail(status::from_error(e))
    }
}

/// What the body of an exported function returns.
pub(crate) type Status = Result<(), Fail>;

/// Runs the body of an exported function and returns its status number.
#[inline(always)]
pub(crate) fn run(body: impl FnOnce() -> Status) -> sketch_status {
    match body() {
        Ok(()) => SKETCH_OK,
        Err(Fail(code)) => code,
    }
}

#[inline(always)]
fn check(ptr: *const c_void, len: usize) -> Status {
    if ptr.is_null() && len != 0 {
        return Err(Fail(SKETCH_NULL_POINTER));
    }
    if beyond_address_space(len) {
        return Err(Fail(SKETCH_INVALID_ARGUMENT));
    }
    Ok(())
}

/// Whether `len` bytes are more than any memory a call may be given (over
/// `isize::MAX` bytes; a count whose byte length overflowed saturates to
/// `usize::MAX`): `SKETCH_INVALID_ARGUMENT` wherever it is checked.
#[inline(always)]
fn beyond_address_space(len: usize) -> bool {
    len > isize::MAX as usize
}

/// Borrows `len` bytes at `ptr` (NULL with length 0 is the empty slice).
///
/// # Safety
/// Unless NULL, `ptr` must point to `len` readable bytes that stay valid and
/// are not written by anyone else for the lifetime `'a`.
#[inline(always)]
pub(crate) unsafe fn bytes<'a>(ptr: *const c_void, len: usize) -> Result<&'a [u8], Fail> {
    check(ptr, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: non-NULL (checked), len <= isize::MAX (checked); validity and
    // exclusivity of the memory are the caller's documented contract.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Mutably borrows `len` bytes at `ptr` (NULL with length 0 is empty).
///
/// # Safety
/// Unless NULL, `ptr` must point to `len` writable bytes that no one else
/// reads or writes for the lifetime `'a`.
#[inline(always)]
pub(crate) unsafe fn bytes_mut<'a>(ptr: *mut c_void, len: usize) -> Result<&'a mut [u8], Fail> {
    check(ptr, len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: as in `bytes`, plus exclusive access per the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) })
}

/// Borrows an array of `count` elements (NULL allowed when `count` is 0).
///
/// # Safety
/// Unless NULL, `ptr` must point to `count` valid, aligned `T` values.
#[inline]
pub(crate) unsafe fn array<'a, T>(ptr: *const T, count: usize) -> Result<&'a [T], Fail> {
    let bytes_len = count.checked_mul(core::mem::size_of::<T>()).ok_or(Fail(SKETCH_INVALID_ARGUMENT))?;
    check(ptr.cast(), bytes_len)?;
    if count == 0 {
        return Ok(&[]);
    }
    if !(ptr as usize).is_multiple_of(core::mem::align_of::<T>()) {
        return Err(Fail(SKETCH_MISALIGNED));
    }
    // SAFETY: non-NULL, aligned, size checked against isize::MAX above;
    // validity is the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(ptr, count) })
}

/// Mutably borrows an output array of `count` elements (NULL allowed when
/// `count` is 0).
///
/// # Safety
/// Unless NULL, `ptr` must point to `count` writable `T` slots that no one
/// else accesses during the call.
#[inline]
pub(crate) unsafe fn array_mut<'a, T>(ptr: *mut T, count: usize) -> Result<&'a mut [T], Fail> {
    let bytes_len = count.checked_mul(core::mem::size_of::<T>()).ok_or(Fail(SKETCH_INVALID_ARGUMENT))?;
    check(ptr.cast_const().cast(), bytes_len)?;
    if count == 0 {
        return Ok(&mut []);
    }
    if !(ptr as usize).is_multiple_of(core::mem::align_of::<T>()) {
        return Err(Fail(SKETCH_MISALIGNED));
    }
    // SAFETY: non-NULL, aligned, size checked; exclusivity is the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, count) })
}

/// An optional per-item output array: NULL means "not wanted".
///
/// # Safety
/// As for [`array_mut`].
#[inline]
pub(crate) unsafe fn optional_array_mut<'a, T>(
    ptr: *mut T,
    count: usize,
) -> Result<Option<&'a mut [T]>, Fail> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    Ok(Some(unsafe { array_mut(ptr, count)? }))
}

/// A required per-item output array (NULL allowed only when `count` is 0).
///
/// # Safety
/// As for [`array_mut`].
#[inline]
pub(crate) unsafe fn required_array_mut<'a, T>(ptr: *mut T, count: usize) -> Result<&'a mut [T], Fail> {
    if count > 0 {
        require(ptr)?;
    }
    // SAFETY: forwarded contract.
    unsafe { array_mut(ptr, count) }
}

/// Writes `value` to a non-NULL output pointer.
///
/// # Safety
/// Unless NULL, `ptr` must be valid for a write of `T`.
#[inline(always)]
pub(crate) unsafe fn write_out<T>(ptr: *mut T, value: T) -> Status {
    if ptr.is_null() {
        return Err(Fail(SKETCH_NULL_POINTER));
    }
    // SAFETY: non-NULL; validity for writes is the caller's contract.
    unsafe { ptr.write_unaligned(value) };
    Ok(())
}

/// Writes `value` to an optional output pointer (NULL: nothing is written).
///
/// # Safety
/// Unless NULL, `ptr` must be valid for a write of `T`.
#[inline(always)]
pub(crate) unsafe fn write_optional<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL; validity for writes is the caller's contract.
        unsafe { ptr.write_unaligned(value) };
    }
}

/// A parameter struct of the C ABI and the core parameters it stands for.
pub(crate) trait CParams: Copy {
    /// The core's parameter type.
    type Core;
    /// Checks the reserved fields (must be 0: minor versions may give them
    /// meaning) and converts; range checks are the core's.
    fn to_core(&self) -> Result<Self::Core, Fail>;
}

/// Fails with `SKETCH_INVALID_PARAMETER` unless a reserved field is 0.
#[inline]
pub(crate) fn reserved_zero(value: u64) -> Status {
    if value == 0 {
        Ok(())
    } else {
        Err(Fail(SKETCH_INVALID_PARAMETER))
    }
}

/// Reads a parameter struct the caller passed by pointer and converts it.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (a reserved field is not 0).
///
/// # Safety
/// Unless NULL, `ptr` must point to a readable `P` (any alignment).
#[inline]
pub(crate) unsafe fn params<P: CParams>(ptr: *const P) -> Result<P::Core, Fail> {
    require(ptr)?;
    // SAFETY: non-NULL; validity is the caller's contract.
    unsafe { ptr.read_unaligned() }.to_core()
}

/// Fails with `SKETCH_NULL_POINTER` when a required output pointer is NULL,
/// before any work is done.
#[inline(always)]
pub(crate) fn require<T>(ptr: *const T) -> Status {
    if ptr.is_null() {
        Err(Fail(SKETCH_NULL_POINTER))
    } else {
        Ok(())
    }
}

/// The memory one argument of a call covers: `count` items of `T` at `ptr`
/// (for the overlap checks, made before any reference to it exists).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Span {
    ptr: *const c_void,
    len: usize,
}

impl Span {
    /// `count` items of `T` at `ptr` (NULL or empty: covers nothing).
    #[inline(always)]
    pub(crate) fn of<T>(ptr: *const T, count: usize) -> Span {
        // A NULL argument is refused (or means "not wanted") elsewhere; it
        // covers no memory, whatever its count.
        let len = if ptr.is_null() { 0 } else { count.saturating_mul(core::mem::size_of::<T>()) };
        Span { ptr: ptr.cast(), len }
    }

    /// Whether the two spans share a byte.
    #[inline(always)]
    pub(crate) fn overlaps(self, other: Span) -> bool {
        overlaps(self.ptr, self.len, other.ptr, other.len)
    }
}

/// Refuses a call with `SKETCH_OVERLAP` when memory it writes (`written`:
/// the image of an update, output arrays) shares a byte with other memory
/// of the call: another written span, `keys` (when given) or any of `read`
/// (images, hashes or weights it only reads). Checked before any reference
/// to them exists: Rust allows no other view of bytes it holds a mutable
/// view of, so a key stored inside the image it updates, or results
/// written over the keys, would be undefined behaviour; such calls fail
/// instead, changing nothing. The keys are walked once, against every
/// written span together (O(count) for `sketch_slice` arrays).
///
/// A span longer than the address space (a count beyond it) is
/// `SKETCH_INVALID_ARGUMENT` first, as the array checks report it: its
/// length means no memory, so an overlap computed from it would be noise.
#[inline(always)]
pub(crate) fn apart(written: &[Span], keys: Option<&Keys<'_>>, read: &[Span]) -> Status {
    if written.iter().chain(read).any(|span| beyond_address_space(span.len)) {
        return Err(Fail(SKETCH_INVALID_ARGUMENT));
    }
    let mut clash = false;
    for (i, w) in written.iter().enumerate() {
        for other in written.iter().skip(i + 1).chain(read) {
            clash |= w.overlaps(*other);
        }
    }
    if let Some(keys) = keys {
        clash |= written.iter().any(|w| w.len != 0) && keys.overlaps_any(written);
    }
    if clash {
        Err(Fail(SKETCH_OVERLAP))
    } else {
        Ok(())
    }
}

/// Refuses with `SKETCH_OVERLAP` a single-value output (`out`, one `T`;
/// NULL covers nothing) that shares a byte with the image `buf`/`len` of
/// its call: the value would land in the image (over its header or body,
/// or in an image other threads read). Checked before anything changes.
#[inline(always)]
pub(crate) fn out_apart<T>(out: *const T, buf: *const c_void, len: usize) -> Status {
    if Span::of(out, 1).overlaps(Span::of(buf.cast::<u8>(), len)) {
        Err(Fail(SKETCH_OVERLAP))
    } else {
        Ok(())
    }
}

/// True when the byte ranges `[a, a+a_len)` and `[b, b+b_len)` overlap
/// (both non-empty and intersecting). Without branches: the single-key
/// updates run it on every call. The ends wrap: a range that wraps the
/// address space is no memory a caller may pass (it breaks every call's
/// pointer contract, checked here or not).
#[inline(always)]
pub(crate) fn overlaps(a: *const c_void, a_len: usize, b: *const c_void, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    (a_len != 0) & (b_len != 0) & (a < b.wrapping_add(b_len)) & (b < a.wrapping_add(a_len))
}

/// Keys hashed per chunk in batch calls (128 bytes of stack; every
/// exported function stays within 1 KiB of stack).
pub(crate) const CHUNK: usize = 16;

/// The keys of a batch call, in one of the three shapes of the C ABI, all
/// validated before anything changes.
#[derive(Copy, Clone)]
pub(crate) struct Keys<'a> {
    shape: Shape<'a>,
}

#[derive(Copy, Clone)]
enum Shape<'a> {
    /// `sketch_slice` array: every pointer checked (non-NULL unless empty).
    Slices(&'a [sketch_slice]),
    /// Arrow Binary layout: key `i` is `data[offsets[i]..offsets[i+1]]`;
    /// offsets checked non-decreasing and within `data`; `offsets.len()` is
    /// `count + 1` (0 when `count` is 0 and the caller passed NULL).
    Packed { data: &'a [u8], offsets: &'a [u32] },
    /// Integer keys, hashed as their 8 little-endian bytes.
    Ints(&'a [u64]),
}

impl<'a> Keys<'a> {
    /// An array of `count` `sketch_slice`s.
    ///
    /// Errors: `SKETCH_NULL_POINTER` (the array, or a key with non-zero
    /// length), `SKETCH_MISALIGNED`, `SKETCH_INVALID_ARGUMENT` (a length
    /// above `PTRDIFF_MAX`).
    ///
    /// # Safety
    /// Unless NULL, `keys` must point to `count` `sketch_slice`s whose
    /// non-NULL pointers point to `len` readable bytes, valid for `'a`.
    #[inline]
    pub(crate) unsafe fn slices(keys: *const sketch_slice, count: usize) -> Result<Self, Fail> {
        // SAFETY: caller contract.
        let keys = unsafe { array(keys, count)? };
        for k in keys {
            check(k.ptr, k.len)?;
        }
        Ok(Keys { shape: Shape::Slices(keys) })
    }

    /// `count` keys packed in `data` (`data_len` bytes) with `count + 1`
    /// offsets: the Arrow Binary/String layout.
    ///
    /// Errors: `SKETCH_NULL_POINTER` (`offsets` with `count > 0`, or `data`
    /// with `data_len > 0`), `SKETCH_MISALIGNED` (offsets not 4-byte
    /// aligned), `SKETCH_INVALID_PARAMETER` (offsets decreasing or past
    /// `data_len`).
    ///
    /// # Safety
    /// Unless NULL, `data` must point to `data_len` readable bytes and
    /// `offsets` to `count + 1` readable `uint32_t`s, valid for `'a`.
    #[inline]
    pub(crate) unsafe fn packed(
        data: *const c_void,
        data_len: usize,
        offsets: *const u32,
        count: usize,
    ) -> Result<Self, Fail> {
        // SAFETY: caller contract.
        let data = unsafe { bytes(data, data_len)? };
        let offsets = if count == 0 && offsets.is_null() {
            &[]
        } else {
            require(offsets)?;
            let entries = count.checked_add(1).ok_or(Fail(SKETCH_INVALID_ARGUMENT))?;
            // SAFETY: caller contract (count + 1 entries).
            unsafe { array(offsets, entries)? }
        };
        let mut previous = 0u32;
        for &offset in offsets {
            if offset < previous {
                return Err(Fail(SKETCH_INVALID_PARAMETER));
            }
            previous = offset;
        }
        if previous as usize > data.len() {
            return Err(Fail(SKETCH_INVALID_PARAMETER));
        }
        Ok(Keys { shape: Shape::Packed { data, offsets } })
    }

    /// An array of `count` integer keys.
    ///
    /// # Safety
    /// Unless NULL, `keys` must point to `count` readable `uint64_t`s.
    #[inline]
    pub(crate) unsafe fn ints(keys: *const u64, count: usize) -> Result<Self, Fail> {
        // SAFETY: caller contract.
        Ok(Keys { shape: Shape::Ints(unsafe { array(keys, count)? }) })
    }

    /// Number of keys.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self.shape {
            Shape::Slices(keys) => keys.len(),
            Shape::Packed { offsets, .. } => offsets.len().saturating_sub(1),
            Shape::Ints(keys) => keys.len(),
        }
    }

    /// True when any memory of the keys (the array, the packed data and
    /// offsets, or the bytes of any `sketch_slice` key) overlaps any of
    /// `spans`. One pass over the keys: O(count x spans) for `sketch_slice`
    /// arrays, O(spans) otherwise.
    pub(crate) fn overlaps_any(&self, spans: &[Span]) -> bool {
        let hit = |p: *const c_void, n: usize| spans.iter().any(|s| overlaps(p, n, s.ptr, s.len));
        match self.shape {
            Shape::Slices(keys) => {
                hit(keys.as_ptr().cast(), core::mem::size_of_val(keys))
                    || keys.iter().any(|k| hit(k.ptr, k.len))
            }
            Shape::Packed { data, offsets } => {
                hit(data.as_ptr().cast(), data.len())
                    || hit(offsets.as_ptr().cast(), core::mem::size_of_val(offsets))
            }
            Shape::Ints(keys) => hit(keys.as_ptr().cast(), core::mem::size_of_val(keys)),
        }
    }

    /// Calls `f` with the bytes of key `i` (an integer key as its 8
    /// little-endian bytes); `None` when `i` is out of range.
    #[inline(always)]
    pub(crate) fn with_key<R>(&self, i: usize, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        match self.shape {
            Shape::Slices(keys) => {
                let key = keys.get(i)?;
                if key.len == 0 {
                    return Some(f(&[]));
                }
                // SAFETY: `slices` checked this pointer (non-NULL for len > 0,
                // len <= isize::MAX); validity for 'a is its caller's contract.
                Some(f(unsafe { core::slice::from_raw_parts(key.ptr.cast::<u8>(), key.len) }))
            }
            Shape::Packed { data, offsets } => {
                let start = *offsets.get(i)? as usize;
                let end = *offsets.get(i.checked_add(1)?)? as usize;
                Some(f(data.get(start..end)?))
            }
            Shape::Ints(keys) => Some(f(&keys.get(i)?.to_le_bytes())),
        }
    }

    /// Hashes keys `start .. start + out.len()` into `out` (0 for indices
    /// past the keys, which callers never pass). The hash function and the
    /// key shape are matched once per chunk, not once per key; integer keys
    /// under XXH3 take [`hash::hash_u64`], the same value without the
    /// length dispatch.
    #[inline]
    fn hash_into(&self, start: usize, out: &mut [u64], hasher: KeyHasher) {
        let seed = hasher.seed;
        match (hasher.kind, self.shape) {
            (HashKind::Xxh3, Shape::Ints(keys)) => {
                let keys = keys.get(start..).unwrap_or(&[]);
                let ints = hash::U64Hasher::new(seed);
                write_all(out, keys.iter().map(|k| ints.hash(*k)));
            }
            (HashKind::Xxh3, _) => self.hash_each(start, out, |k| hash::xxh3_64(k, seed)),
            (HashKind::Xxh64, _) => self.hash_each(start, out, |k| hash::xxh64(k, seed)),
        }
    }

    /// [`Keys::hash_into`] with the hash function `hash`.
    #[inline(always)]
    fn hash_each(&self, start: usize, out: &mut [u64], hash: impl Fn(&[u8]) -> u64) {
        match self.shape {
            Shape::Packed { data, offsets } => {
                // Key `i` spans offsets `i` and `i + 1`: consecutive windows.
                let bounds = offsets.get(start..).unwrap_or(&[]);
                let key_hash = |window: &[u32]| match *window {
                    [from, to] => data.get(from as usize..to as usize).map_or(0, &hash),
                    _ => 0,
                };
                write_all(out, bounds.windows(2).map(key_hash));
            }
            Shape::Ints(keys) => {
                let keys = keys.get(start..).unwrap_or(&[]);
                write_all(out, keys.iter().map(|k| hash(&k.to_le_bytes())));
            }
            Shape::Slices(_) => {
                for (i, h) in (start..).zip(out.iter_mut()) {
                    *h = self.with_key(i, &hash).unwrap_or(0);
                }
            }
        }
    }

    /// Hashes the keys chunk by chunk ([`CHUNK`] at a time) and hands each
    /// chunk's first index and hashes to `sink`; stops at the first error.
    #[inline]
    pub(crate) fn for_hashed_chunks(
        &self,
        hasher: KeyHasher,
        sink: impl FnMut(usize, &[u64]) -> Status,
    ) -> Status {
        self.for_hashed_chunks_of::<CHUNK>(hasher, sink)
    }

    /// [`Keys::for_hashed_chunks`] with `N` keys per chunk (`8 N` bytes of
    /// stack).
    #[inline]
    pub(crate) fn for_hashed_chunks_of<const N: usize>(
        &self,
        hasher: KeyHasher,
        mut sink: impl FnMut(usize, &[u64]) -> Status,
    ) -> Status {
        let mut hashes = [0u64; N];
        let total = self.len();
        let mut start = 0;
        while start < total {
            let n = (total - start).min(N);
            let chunk = hashes.get_mut(..n).unwrap_or(&mut []);
            self.hash_into(start, chunk, hasher);
            sink(start, chunk)?;
            start += n;
        }
        Ok(())
    }
}

/// Writes `values` into `out` in order and zeroes the slots they do not
/// reach (none, for the chunks callers pass): each slot is stored once.
#[inline(always)]
fn write_all(out: &mut [u64], values: impl Iterator<Item = u64>) {
    let mut slots = out.iter_mut();
    // Values first: when they run out, zip takes no slot it cannot fill.
    for (value, slot) in values.zip(slots.by_ref()) {
        *slot = value;
    }
    slots.for_each(|slot| *slot = 0);
}

/// The part of an optional per-item output that belongs to the chunk of
/// `n` items starting at `start`.
#[inline(always)]
pub(crate) fn part<'o, T>(out: &'o mut Option<&mut [T]>, start: usize, n: usize) -> Option<&'o mut [T]> {
    out.as_deref_mut().and_then(|o| o.get_mut(start..start.saturating_add(n)))
}

/// The part of a required per-item output that belongs to a chunk.
#[inline(always)]
pub(crate) fn part_of<T>(out: &mut [T], start: usize, n: usize) -> Result<&mut [T], Fail> {
    out.get_mut(start..start.saturating_add(n)).ok_or(Fail(SKETCH_INVALID_ARGUMENT))
}

#[cfg(test)]
mod tests {
    use crate::status::*;
    use core::ffi::c_void;

    /// One allocation: 64 bytes for two results, then an initialized Bloom
    /// filter (so the results lie below the image, as static arrays below a
    /// heap image do in C). Returns the memory and the image's length.
    fn results_then_bloom_image() -> (Vec<u64>, usize) {
        let mut params = core::mem::MaybeUninit::uninit();
        // SAFETY: `params` is writable.
        assert_eq!(unsafe { crate::bloom::sketch_bloom_plan(100, 0.01, params.as_mut_ptr()) }, SKETCH_OK);
        // SAFETY: written by the plan above.
        let params = unsafe { params.assume_init() };
        let mut size = 0u64;
        // SAFETY: valid params and output.
        assert_eq!(unsafe { crate::bloom::sketch_bloom_size(&params, &mut size) }, SKETCH_OK);
        let len = size as usize;
        let mut memory = vec![0u64; 8 + len / 8];
        // SAFETY: `memory[8..]` holds `len` writable, 8-byte aligned bytes.
        let status =
            unsafe { crate::bloom::sketch_bloom_init(memory[8..].as_mut_ptr().cast(), len, &params, 1) };
        assert_eq!(status, SKETCH_OK);
        (memory, len)
    }

    /// The header's batch convention: a count whose array would not fit in
    /// the address space is `SKETCH_INVALID_ARGUMENT`, checked before the
    /// overlap of the arrays (whose lengths it makes meaningless) and before
    /// the image. The hash-array queries and removals returned
    /// `SKETCH_OVERLAP` instead when the results lay below the image: the
    /// results' span of `count` bytes reached it.
    #[test]
    fn a_count_beyond_the_address_space_is_an_invalid_argument_before_any_overlap() {
        let (mut memory, len) = results_then_bloom_image();
        let before = memory.clone();
        let hashes = [1u64, 2];
        let huge = usize::MAX / 8;
        let results: *mut bool = memory.as_mut_ptr().cast();
        // SAFETY: in bounds of `memory`.
        let buf: *mut c_void = unsafe { memory.as_mut_ptr().add(8) }.cast();
        // SAFETY: the calls must refuse the count before touching anything.
        unsafe {
            use crate::{bloom, counting, cuckoo, fuse, sbbf};
            let h = hashes.as_ptr();
            assert_eq!(
                bloom::sketch_bloom_contains_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                bloom::sketch_bloom_contains_u64_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                sbbf::sketch_sbbf_contains_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                counting::sketch_counting_contains_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                counting::sketch_counting_remove_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                cuckoo::sketch_cuckoo_contains_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
            assert_eq!(
                fuse::sketch_fuse_contains_hash_batch(buf, len, h, huge, results),
                SKETCH_INVALID_ARGUMENT
            );
        }
        assert_eq!(memory, before, "nothing written");
        // A real overlap with a possible count is still an overlap.
        // SAFETY: results written over the two hashes: refused before any write.
        let status = unsafe {
            crate::bloom::sketch_bloom_contains_hash_batch(
                buf,
                len,
                hashes.as_ptr(),
                2,
                hashes.as_ptr().cast_mut().cast(),
            )
        };
        assert_eq!(status, SKETCH_OVERLAP);
    }

    #[test]
    fn write_all_fills_in_order_and_zeroes_what_the_values_do_not_reach() {
        let mut out = [7u64; 4];
        super::write_all(&mut out, [1, 2].into_iter());
        assert_eq!(out, [1, 2, 0, 0]);
        super::write_all(&mut out, 10..20);
        assert_eq!(out, [10, 11, 12, 13]);
    }
}
