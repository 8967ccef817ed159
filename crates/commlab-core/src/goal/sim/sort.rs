//! GCC libstdc++'s `std::sort`, transcribed: LogGOPSim orders its ready
//! lists with it in bit-exact mode (`docs/loggops.md` §7).

/// GCC libstdc++'s `std::sort` (introsort with the final insertion sort of
/// 16 elements), transcribed from `docs/loggops.md` §7: LogGOPSim's ready
/// lists in bit-exact mode.
pub fn libstdcxx_sort<T: Copy>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    intro(v, 0, n, 2 * n.ilog2() as usize, less);
    if n > 16 {
        insertion(v, 0, 16, less);
        for i in 16..n {
            sift(v, i, less);
        }
    } else {
        insertion(v, 0, n, less);
    }
}

fn intro<T: Copy>(v: &mut [T], lo: usize, mut hi: usize, mut depth: usize, less: &dyn Fn(&T, &T) -> bool) {
    while hi - lo > 16 {
        if depth == 0 {
            heapsort(&mut v[lo..hi], less);
            return;
        }
        depth -= 1;
        median_to(v, lo, lo + 1, lo + (hi - lo) / 2, hi - 1, less);
        let cut = partition(v, lo + 1, hi, lo, less);
        intro(v, cut, hi, depth, less);
        hi = cut;
    }
}

fn median_to<T: Copy>(v: &mut [T], r: usize, a: usize, b: usize, c: usize, less: &dyn Fn(&T, &T) -> bool) {
    let m = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(r, m);
}

fn partition<T: Copy>(v: &mut [T], mut i: usize, mut j: usize, p: usize, less: &dyn Fn(&T, &T) -> bool) -> usize {
    loop {
        while less(&v[i], &v[p]) {
            i += 1;
        }
        j -= 1;
        while less(&v[p], &v[j]) {
            j -= 1;
        }
        if i >= j {
            return i;
        }
        v.swap(i, j);
        i += 1;
    }
}

fn insertion<T: Copy>(v: &mut [T], lo: usize, hi: usize, less: &dyn Fn(&T, &T) -> bool) {
    for i in lo + 1..hi {
        if less(&v[i], &v[lo]) {
            let x = v[i];
            v.copy_within(lo..i, lo + 1);
            v[lo] = x;
        } else {
            sift(v, i, less);
        }
    }
}

fn sift<T: Copy>(v: &mut [T], mut i: usize, less: &dyn Fn(&T, &T) -> bool) {
    let x = v[i];
    while less(&x, &v[i - 1]) {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[i] = x;
}

/// Heapsort for the depth limit (not reached with three keys in practice).
fn heapsort<T: Copy>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    let n = v.len();
    let down = |v: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[root], &v[child]) {
            break;
        }
        v.swap(root, child);
        root = child;
    };
    for i in (0..n / 2).rev() {
        down(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        down(v, 0, end);
    }
}
