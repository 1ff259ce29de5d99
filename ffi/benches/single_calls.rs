//! The cost of one C call against the per-key cost of a batch call, and the
//! batch calls against the core's single-key loop, on the stand's workload
//! (1,000,000 16-byte keys, filters planned for 1,000,000 at 1%).
//!
//! * `calls_1M_1pct`: for Bloom, split-block and HyperLogLog, the exported
//!   single-key function called once per key (through a function pointer,
//!   so nothing is inlined across the boundary, as from C, Go or Java)
//!   against the packed batch form over the same keys, and the single-key
//!   `_with_token` form (headers validated once, see `sketch_token`), and
//!   the `_view` form (a `sketch_view` made once: no per-call check of the
//!   image), the core's single-key loop (one wrap, then one call per key)
//!   and the floor of any C call (the core's operation on a view opened
//!   once, behind an opaque `extern "C"` function that checks nothing).
//!   Target: single calls at most 1.3x the batch's time per key.
//! * `overlap_1M_1pct`: the batch forms of Bloom, counting Bloom and cuckoo
//!   (which locate a group of keys before touching memory) against the
//!   core's own single-key loop over the same keys. Target: at least 1.5x.
//!   The loop reads the keys as the batch call does, through the offsets
//!   array (`core_single`), and as 16-byte slices whose length the compiler
//!   sees and compiles the hash for (`core_single_fixed16`, the only loop
//!   before; no caller with keys of varying length gets that hash).
//!
//! Run with `cargo bench -p sketches-ffi --bench single_calls`.
#![allow(missing_docs, clippy::unwrap_used)]

use core::ffi::c_void;
use criterion::{criterion_group, Criterion, Throughput};
use sketches_core::{bloom, counting, cuckoo, hll, sbbf};
use sketches_ffi::image::{sketch_token, sketch_view};
use sketches_ffi::SKETCH_OK;
use std::hint::black_box;

const N: usize = 1_000_000;
/// Keys per batch call (what a binding passes per crossing).
const BATCH: usize = 4096;

struct Keys {
    data: Vec<u8>,
    offsets: Vec<u32>,
}

fn keys(tag: u64) -> Keys {
    let mut data = Vec::with_capacity(16 * N);
    let mut offsets = vec![0u32];
    for i in 0..N as u64 {
        data.extend_from_slice(&sketches_core::hash::hash_u64(i, tag).to_le_bytes());
        data.extend_from_slice(&i.to_le_bytes());
        offsets.push(data.len() as u32);
    }
    Keys { data, offsets }
}

impl Keys {
    fn key(&self, i: usize) -> &[u8] {
        &self.data[16 * i..16 * i + 16]
    }
}

/// A 64-byte aligned image.
struct Img(Vec<u64>);

impl Img {
    fn new(len: u64) -> Img {
        let mut v = Vec::with_capacity(len as usize / 8 + 8);
        v.resize(len as usize / 8, 0u64);
        Img(v)
    }
    fn bytes(&mut self) -> &mut [u8] {
        let len = self.0.len() * 8;
        // SAFETY: a Vec<u64> viewed as bytes, same length in bytes.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), len) }
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
    fn len(&self) -> usize {
        self.0.len() * 8
    }
}

/// One pass of packed batch calls of `BATCH` keys over `keys` (results
/// into a reused array); returns the count of true results.
fn packed_pass(
    keys: &Keys,
    mut call: impl FnMut(*const c_void, usize, *const u32, usize, *mut bool) -> i32,
) -> usize {
    let mut out = [false; BATCH];
    let mut hits = 0;
    for start in (0..N).step_by(BATCH) {
        let n = BATCH.min(N - start);
        // The offsets of keys start..=start + n index into `data`.
        let st = call(
            keys.data.as_ptr().cast(),
            keys.data.len(),
            keys.offsets[start..].as_ptr(),
            n,
            out.as_mut_ptr(),
        );
        debug_assert_eq!(st, SKETCH_OK);
        hits += out[..n].iter().filter(|b| **b).count();
    }
    hits
}

/// The floor of any single C call: the core's operation on a view opened
/// once, behind an `extern "C"` function called through an opaque pointer,
/// with no status and no checks. No exported function can cost less per
/// call (each must at least check its arguments).
type FloorCall = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> bool;

macro_rules! floor_call {
    ($name:ident, $view:ty, $op:ident) => {
        unsafe extern "C" fn $name(view: *mut c_void, key: *const u8, len: usize) -> bool {
            // SAFETY: the contender passes its open view and one key's bytes.
            let (view, key) = unsafe { (&mut *view.cast::<$view>(), std::slice::from_raw_parts(key, len)) };
            view.$op(key)
        }
    };
}
floor_call!(bloom_add_floor, bloom::BloomMut<'static>, add);
floor_call!(bloom_contains_floor, bloom::Bloom<'static>, contains);
floor_call!(sbbf_add_floor, sbbf::SbbfMut<'static>, add);
floor_call!(sbbf_contains_floor, sbbf::Sbbf<'static>, contains);
floor_call!(hll_add_floor, hll::HllMut<'static>, add);

/// [`core_loop`] over the floor call `call` on the open view `view`.
fn floor_loop<V>(keys: &Keys, view: &mut V, call: FloorCall) -> usize {
    let view = black_box(std::ptr::from_mut(view).cast::<c_void>());
    // SAFETY: `view` is a live view of the type `call` expects; keys valid.
    core_loop(keys, |k| unsafe { call(view, k.as_ptr(), k.len()) })
}

/// One way of running an operation over all keys: a name (the criterion
/// row) and one pass, returning the count of true results.
type Contender<'a> = (String, Box<dyn FnMut() -> usize + 'a>);

/// The image argument of a C form: `void *` for adds, `const void *` for
/// queries (the bench passes the same writable image to both).
trait ImagePtr: Copy + 'static {
    fn of(buf: *mut c_void) -> Self;
}
impl ImagePtr for *mut c_void {
    fn of(buf: *mut c_void) -> Self {
        buf
    }
}
impl ImagePtr for *const c_void {
    fn of(buf: *mut c_void) -> Self {
        buf.cast_const()
    }
}

/// The exported C functions of one family's single-key add (or contains,
/// with `P` = `*const c_void`): the plain call, the token form with its
/// token maker, the view form with its view maker, and the packed batch.
struct CForms<P> {
    plain: unsafe extern "C" fn(P, usize, *const c_void, usize, *mut bool) -> i32,
    make_token: unsafe extern "C" fn(*const c_void, usize, *mut sketch_token) -> i32,
    with_token: unsafe extern "C" fn(P, usize, *const sketch_token, *const c_void, usize, *mut bool) -> i32,
    make_view: unsafe extern "C" fn(*mut c_void, usize, *mut sketch_view) -> i32,
    with_view: unsafe extern "C" fn(*const sketch_view, *const c_void, usize, *mut bool) -> i32,
    packed: unsafe extern "C" fn(P, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32,
}

/// The contenders of one operation (`{family}_{op}_...` rows) on the image
/// `img`: the C forms of `c`, each called once per key through a function
/// pointer (nothing inlines across the boundary, as from C, Go or Java),
/// the core's single-key loop and the floor (`core` opens the image once
/// per pass and runs the core's operation per key, or `floor` with the
/// view when given it).
fn contenders<'a, P: ImagePtr>(
    prefix: &str,
    (buf, len): (*mut c_void, usize),
    keys: &'a Keys,
    c: CForms<P>,
    core: impl Fn(*mut u8, usize, &Keys, Option<FloorCall>) -> usize + Copy + 'a,
    floor: FloorCall,
) -> Vec<Contender<'a>> {
    let image = P::of(buf);
    let mut token = sketch_token::default();
    // SAFETY: a live image and an output.
    assert_eq!(unsafe { (c.make_token)(buf, len, &mut token) }, SKETCH_OK);
    let mut view = std::mem::MaybeUninit::<sketch_view>::uninit();
    // SAFETY: a live image and an output, written on success (asserted).
    assert_eq!(unsafe { (c.make_view)(buf, len, view.as_mut_ptr()) }, SKETCH_OK);
    // SAFETY: written by the successful call.
    let view = unsafe { view.assume_init() };
    let (plain, with_token, with_view, packed) =
        (black_box(c.plain), black_box(c.with_token), black_box(c.with_view), black_box(c.packed));
    let floor = black_box(floor);
    vec![
        (
            format!("{prefix}_single_call"),
            Box::new(move || {
                core_loop(keys, |k| {
                    let mut out = false;
                    unsafe { plain(image, len, k.as_ptr().cast(), k.len(), &mut out) };
                    out
                })
            }),
        ),
        (
            format!("{prefix}_single_call_with_token"),
            Box::new(move || {
                core_loop(keys, |k| {
                    let mut out = false;
                    unsafe { with_token(image, len, &token, k.as_ptr().cast(), k.len(), &mut out) };
                    out
                })
            }),
        ),
        (
            format!("{prefix}_single_call_with_view"),
            Box::new(move || {
                core_loop(keys, |k| {
                    let mut out = false;
                    unsafe { with_view(&view, k.as_ptr().cast(), k.len(), &mut out) };
                    out
                })
            }),
        ),
        (
            format!("{prefix}_packed_batch"),
            Box::new(move || {
                packed_pass(keys, |d, dl, o, n, out| unsafe { packed(image, len, d, dl, o, n, out) })
            }),
        ),
        (format!("{prefix}_core_single"), Box::new(move || core(buf.cast(), len, keys, None))),
        (format!("{prefix}_floor_call"), Box::new(move || core(buf.cast(), len, keys, Some(floor)))),
    ]
}

/// The contenders of the `calls_1M_1pct` rows, by operation: Bloom add and
/// contains, split-block add and contains, HyperLogLog add (p = 14), over
/// 1,000,000 16-byte keys on filters planned for them at 1%.
fn call_contenders<'a>(imgs: &'a mut [Img; 3], keys: &'a Keys) -> Vec<Vec<Contender<'a>>> {
    use sketches_ffi::bloom::*;
    use sketches_ffi::hll::*;
    use sketches_ffi::sbbf::*;
    // The contenders hold the images' pointers only (`imgs` outlives them).
    let [bloom_image, sbbf_image, hll_image] = imgs.each_mut().map(|img| (img.ptr(), img.len()));
    let bloom_add = CForms {
        plain: sketch_bloom_add,
        make_token: sketch_bloom_token,
        with_token: sketch_bloom_add_with_token,
        make_view: sketch_bloom_view,
        with_view: sketch_bloom_view_add,
        packed: sketch_bloom_add_packed,
    };
    let sbbf_add = CForms {
        plain: sketch_sbbf_add,
        make_token: sketch_sbbf_token,
        with_token: sketch_sbbf_add_with_token,
        make_view: sketch_sbbf_view,
        with_view: sketch_sbbf_view_add,
        packed: sketch_sbbf_add_packed,
    };
    let hll_add = CForms {
        plain: sketch_hll_add,
        make_token: sketch_hll_token,
        with_token: sketch_hll_add_with_token,
        make_view: sketch_hll_view,
        with_view: sketch_hll_view_add,
        packed: hll_add_packed,
    };
    let bloom_contains = CForms {
        plain: sketch_bloom_contains,
        make_token: sketch_bloom_token,
        with_token: sketch_bloom_contains_with_token,
        make_view: sketch_bloom_view,
        with_view: sketch_bloom_view_contains,
        packed: sketch_bloom_contains_packed,
    };
    let sbbf_contains = CForms {
        plain: sketch_sbbf_contains,
        make_token: sketch_sbbf_token,
        with_token: sketch_sbbf_contains_with_token,
        make_view: sketch_sbbf_view,
        with_view: sketch_sbbf_view_contains,
        packed: sketch_sbbf_contains_packed,
    };
    // SAFETY (the core loops): each pass views the image alone.
    let bytes = |buf: *mut u8, len: usize| unsafe { std::slice::from_raw_parts_mut(buf, len) };
    vec![
        contenders(
            "bloom_add",
            bloom_image,
            keys,
            bloom_add,
            move |b, l, k, floor| {
                let mut f = bloom::wrap_mut(bytes(b, l)).unwrap();
                match floor {
                    Some(call) => floor_loop(k, &mut f, call),
                    None => core_loop(k, |key| f.add(key)),
                }
            },
            bloom_add_floor,
        ),
        contenders(
            "bloom_contains",
            bloom_image,
            keys,
            bloom_contains,
            move |b, l, k, floor| {
                let mut f = bloom::wrap(bytes(b, l)).unwrap();
                match floor {
                    Some(call) => floor_loop(k, &mut f, call),
                    None => core_loop(k, |key| f.contains(key)),
                }
            },
            bloom_contains_floor,
        ),
        contenders(
            "sbbf_add",
            sbbf_image,
            keys,
            sbbf_add,
            move |b, l, k, floor| {
                let mut f = sbbf::wrap_mut(bytes(b, l)).unwrap();
                match floor {
                    Some(call) => floor_loop(k, &mut f, call),
                    None => core_loop(k, |key| f.add(key)),
                }
            },
            sbbf_add_floor,
        ),
        contenders(
            "sbbf_contains",
            sbbf_image,
            keys,
            sbbf_contains,
            move |b, l, k, floor| {
                let mut f = sbbf::wrap(bytes(b, l)).unwrap();
                match floor {
                    Some(call) => floor_loop(k, &mut f, call),
                    None => core_loop(k, |key| f.contains(key)),
                }
            },
            sbbf_contains_floor,
        ),
        contenders(
            "hll_add",
            hll_image,
            keys,
            hll_add,
            move |b, l, k, floor| {
                let mut h = hll::wrap_mut(bytes(b, l)).unwrap();
                match floor {
                    Some(call) => floor_loop(k, &mut h, call),
                    None => core_loop(k, |key| h.add(key)),
                }
            },
            hll_add_floor,
        ),
    ]
}

/// The three images of the `calls_1M_1pct` rows, initialized.
fn call_images() -> [Img; 3] {
    let bp = bloom::BloomParams::for_items(N as u64, 0.01).unwrap();
    let mut bloom_img = Img::new(bp.image_len().unwrap());
    bloom::init(bloom_img.bytes(), &bp, 0).unwrap();
    let sp = sbbf::SbbfParams::for_items(N as u64, 0.01).unwrap();
    let mut sbbf_img = Img::new(sp.image_len().unwrap());
    sbbf::init(sbbf_img.bytes(), &sp, 0).unwrap();
    let mut hll_img = Img::new(hll::image_len(14).unwrap());
    hll::init(hll_img.bytes(), 14, 0).unwrap();
    [bloom_img, sbbf_img, hll_img]
}

unsafe extern "C" fn hll_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    _: *mut bool,
) -> i32 {
    // SAFETY: forwarded.
    unsafe { sketches_ffi::hll::sketch_hll_add_packed(buf, len, data, data_len, offsets, count) }
}

fn calls(c: &mut Criterion) {
    let present = keys(1);
    let mut imgs = call_images();
    let mut g = c.benchmark_group("calls_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    for op in call_contenders(&mut imgs, &present) {
        for (name, mut pass) in op {
            g.bench_function(name, |b| b.iter(|| black_box(pass())));
        }
    }
    g.finish();
}

/// `-- alternate [ROUNDS] [PREFIX]`: the contenders of each operation of
/// both groups (those whose rows start with PREFIX, when given: `hll`,
/// `sbbf_add`, `bloom_contains_absent`) timed once per round, back to
/// back, for ROUNDS rounds (15 by default); prints each one's best round
/// and its ratio to the batch's best (a slow phase of the VM then hits
/// every contender of a round alike; criterion's blocks of one row each
/// moved ratios by 1.5x). For `overlap_1M_1pct` the target reads off the
/// `core_single` row: at least 1.5x the batch (`core_single_fixed16`
/// alongside).
fn alternate(rounds: usize, prefix: &str) {
    let present = keys(1);
    let absent = keys(2);
    let mut call_imgs = call_images();
    let mut overlap_imgs = overlap_images(&present);
    let groups = [
        ("calls_1M_1pct", call_contenders(&mut call_imgs, &present)),
        ("overlap_1M_1pct", overlap_contenders(&mut overlap_imgs, &present, &absent)),
    ];
    for (group, ops) in groups {
        for mut op in ops {
            if !op.iter().all(|(name, _)| name.starts_with(prefix)) {
                continue;
            }
            let mut best = vec![f64::MAX; op.len()];
            for _ in 0..rounds {
                for (i, (_, pass)) in op.iter_mut().enumerate() {
                    let start = std::time::Instant::now();
                    black_box(pass());
                    best[i] = best[i].min(start.elapsed().as_secs_f64() * 1e3);
                }
            }
            let batch = op.iter().position(|(n, _)| n.ends_with("_batch")).map_or(1.0, |i| best[i]);
            for ((name, _), ms) in op.iter().zip(&best) {
                println!(
                    "{group}/{name:<40} best of {rounds}: {ms:7.2} ms per 1M, {:.2}x the batch",
                    ms / batch
                );
            }
        }
    }
}

/// The core's single-key loop (one wrap, then one add or query per key),
/// over keys read as 16-byte slices ([`KeyRead::Fixed16`]).
fn core_loop<F: FnMut(&[u8]) -> bool>(keys: &Keys, op: F) -> usize {
    KeyRead::Fixed16.run(keys, op)
}

/// How a core single-key loop reads its keys.
#[derive(Copy, Clone)]
enum KeyRead {
    /// Through the offsets array, as the packed batch call reads them:
    /// each key's length is a value the loop loads, as for any caller
    /// holding a packed (Arrow-style) column.
    Packed,
    /// As slices of exactly 16 bytes (`Keys::key`): the compiler sees the
    /// length and compiles the hash for it.
    Fixed16,
}

impl KeyRead {
    /// Runs `op` on every key in order; returns how many calls returned true.
    fn run<F: FnMut(&[u8]) -> bool>(self, keys: &Keys, mut op: F) -> usize {
        let mut n = 0;
        match self {
            KeyRead::Packed => {
                for w in keys.offsets.windows(2) {
                    n += usize::from(op(&keys.data[w[0] as usize..w[1] as usize]));
                }
            }
            KeyRead::Fixed16 => {
                for i in 0..N {
                    n += usize::from(op(keys.key(i)));
                }
            }
        }
        n
    }
}

/// The images of the `overlap_1M_1pct` rows: Bloom, counting Bloom and
/// cuckoo filters planned for 1,000,000 keys at 1%, holding the present
/// keys (so that a query row run alone, `alternate` with a prefix, meets
/// the same fill as after the add rows).
fn overlap_images(present: &Keys) -> [Img; 3] {
    let bp = bloom::BloomParams::for_items(N as u64, 0.01).unwrap();
    let mut bloom_img = Img::new(bp.image_len().unwrap());
    bloom::init(bloom_img.bytes(), &bp, 0).unwrap();
    let mut counting_img = Img::new(counting::image_len(&bp).unwrap());
    counting::init(counting_img.bytes(), &bp, 0).unwrap();
    let cp = cuckoo::CuckooParams::for_items(N as u64, 0.01).unwrap();
    let mut cuckoo_img = Img::new(cp.image_len().unwrap());
    cuckoo::init(cuckoo_img.bytes(), &cp, 0).unwrap();
    let mut bloom_f = bloom::wrap_mut(bloom_img.bytes()).unwrap();
    let mut counting_f = counting::wrap_mut(counting_img.bytes()).unwrap();
    let mut cuckoo_f = cuckoo::wrap_mut(cuckoo_img.bytes()).unwrap();
    for i in 0..N {
        bloom_f.add(present.key(i));
        let _ = counting_f.add(present.key(i));
        let _ = cuckoo_f.add(present.key(i));
    }
    [bloom_img, counting_img, cuckoo_img]
}

/// A pass of the packed batch `call` over `keys` on the image `(buf, len)`.
fn batch_contender<'a, P: ImagePtr>(
    name: String,
    (buf, len): (*mut c_void, usize),
    keys: &'a Keys,
    call: unsafe extern "C" fn(P, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32,
) -> Contender<'a> {
    let image = P::of(buf);
    // SAFETY: a live image (the caller's `imgs` outlive the contender) and
    // the offsets and results of `packed_pass`.
    (
        name,
        Box::new(move || packed_pass(keys, |d, dl, o, n, out| unsafe { call(image, len, d, dl, o, n, out) })),
    )
}

/// The contenders of one `overlap_1M_1pct` operation `op` on `image`: the
/// core's single-key loop over the packed keys (`{op}_core_single`: `core`
/// on the image's bytes, remade per pass from the pointer, as the batch
/// contender writes the same image through C calls), the same loop over
/// 16-byte slices (`{op}_core_single_fixed16`, see [`KeyRead`]) and the
/// packed batch call `packed` (`{op}_batch`).
fn overlap_op<'a, P: ImagePtr>(
    op: &str,
    image: (*mut c_void, usize),
    keys: &'a Keys,
    core: impl Fn(&mut [u8], &Keys, KeyRead) -> usize + Copy + 'a,
    packed: unsafe extern "C" fn(P, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32,
) -> Vec<Contender<'a>> {
    let (buf, len) = image;
    let loop_over = move |read: KeyRead| -> Box<dyn FnMut() -> usize + 'a> {
        // SAFETY: a live image that no other contender uses during a pass.
        Box::new(move || core(unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) }, keys, read))
    };
    vec![
        (format!("{op}_core_single"), loop_over(KeyRead::Packed)),
        (format!("{op}_core_single_fixed16"), loop_over(KeyRead::Fixed16)),
        batch_contender(format!("{op}_batch"), image, keys, packed),
    ]
}

/// The contenders of the `overlap_1M_1pct` rows, by operation: the core's
/// single-key loop (one wrap per pass), then the packed batch call over the
/// same keys ([`overlap_op`]).
fn overlap_contenders<'a>(
    imgs: &'a mut [Img; 3],
    present: &'a Keys,
    absent: &'a Keys,
) -> Vec<Vec<Contender<'a>>> {
    use sketches_ffi::bloom::*;
    use sketches_ffi::counting::*;
    use sketches_ffi::cuckoo::*;
    let [bloom_image, counting_image, cuckoo_image] = imgs.each_mut().map(|img| (img.ptr(), img.len()));
    let mut ops = vec![
        overlap_op(
            "bloom_add",
            bloom_image,
            present,
            |b, keys, read| {
                let mut f = bloom::wrap_mut(b).unwrap();
                read.run(keys, |k| f.add(k))
            },
            sketch_bloom_add_packed,
        ),
        overlap_op(
            "counting_add",
            counting_image,
            present,
            |b, keys, read| {
                let mut f = counting::wrap_mut(b).unwrap();
                read.run(keys, |k| f.add(k))
            },
            sketch_counting_add_packed,
        ),
    ];
    for (set, keys) in [("absent", absent), ("present", present)] {
        ops.push(overlap_op(
            &format!("bloom_contains_{set}"),
            bloom_image,
            keys,
            |b, keys, read| {
                let f = bloom::wrap(b).unwrap();
                read.run(keys, |k| f.contains(k))
            },
            sketch_bloom_contains_packed,
        ));
        ops.push(overlap_op(
            &format!("counting_contains_{set}"),
            counting_image,
            keys,
            |b, keys, read| {
                let f = counting::wrap(b).unwrap();
                read.run(keys, |k| f.contains(k))
            },
            sketch_counting_contains_packed,
        ));
        ops.push(overlap_op(
            &format!("cuckoo_contains_{set}"),
            cuckoo_image,
            keys,
            |b, keys, read| {
                let f = cuckoo::wrap(b).unwrap();
                read.run(keys, |k| f.contains(k))
            },
            sketch_cuckoo_contains_packed,
        ));
    }
    ops
}

fn overlap(c: &mut Criterion) {
    let present = keys(1);
    let absent = keys(2);
    let mut imgs = overlap_images(&present);
    let mut g = c.benchmark_group("overlap_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    for op in overlap_contenders(&mut imgs, &present, &absent) {
        for (name, mut pass) in op {
            g.bench_function(name, |b| b.iter(|| black_box(pass())));
        }
    }
    g.finish();
}

criterion_group!(benches, calls, overlap);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "alternate") {
        let rounds = args.iter().find_map(|a| a.parse().ok()).unwrap_or(15);
        let prefix = args
            .iter()
            .skip_while(|a| *a != "alternate")
            .skip(1)
            .find(|a| !a.starts_with("-") && a.parse::<usize>().is_err());
        alternate(rounds, prefix.map_or("", String::as_str));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
