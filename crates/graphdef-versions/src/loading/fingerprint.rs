//! TensorFlow's `Fingerprint64` (`tensorflow/tsl/platform/fingerprint.h`), which a release
//! prints in the summary of a long list: farmhash's `Fingerprint64`, `farmhashna::Hash64`.
//! It is part of a message's text, so it must be TensorFlow's to the bit.

/// `Fingerprint64` of `s`, as TensorFlow computes it. Written here from farmhash's
/// definition: the `farmhash` crate (1.1.5) gives another value for an input of exactly 128
/// bytes, and the tests pin TensorFlow's own values around that length.
pub(super) fn fingerprint64(s: &[u8]) -> u64 {
    const K0: u64 = 0xc3a5_c85c_97cb_3127;
    const K1: u64 = 0xb492_b66f_be98_f273;
    const K2: u64 = 0x9ae1_6a3b_2f90_404f;
    let fetch = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let fetch32 = |at: usize| {
        let mut word = [0u8; 4];
        word.copy_from_slice(&s[at..at + 4]);
        u64::from(u32::from_le_bytes(word))
    };
    let shift_mix = |v: u64| v ^ (v >> 47);
    let hash16 = |u: u64, v: u64, mul: u64| {
        let mut a = (u ^ v).wrapping_mul(mul);
        a ^= a >> 47;
        let mut b = (v ^ a).wrapping_mul(mul);
        b ^= b >> 47;
        b.wrapping_mul(mul)
    };
    let weak32 = |at: usize, a: u64, b: u64| {
        let (w, x, y, z) = (fetch(at), fetch(at + 8), fetch(at + 16), fetch(at + 24));
        let mut a = a.wrapping_add(w);
        let mut b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
        let c = a;
        a = a.wrapping_add(x).wrapping_add(y);
        b = b.wrapping_add(a.rotate_right(44));
        (a.wrapping_add(z), b.wrapping_add(c))
    };
    let len = s.len();
    let len64 = len as u64;
    if len <= 16 {
        if len >= 8 {
            let mul = K2.wrapping_add(len64 * 2);
            let a = fetch(0).wrapping_add(K2);
            let b = fetch(len - 8);
            let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
            let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
            return hash16(c, d, mul);
        }
        if len >= 4 {
            let mul = K2.wrapping_add(len64 * 2);
            let a = fetch32(0);
            return hash16(len64.wrapping_add(a << 3), fetch32(len - 4), mul);
        }
        if len > 0 {
            let (a, b, c) = (
                u64::from(s[0]),
                u64::from(s[len >> 1]),
                u64::from(s[len - 1]),
            );
            let y = a.wrapping_add(b << 8);
            let z = len64.wrapping_add(c << 2);
            return shift_mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K0)).wrapping_mul(K2);
        }
        return K2;
    }
    if len <= 32 {
        let mul = K2.wrapping_add(len64 * 2);
        let a = fetch(0).wrapping_mul(K1);
        let b = fetch(8);
        let c = fetch(len - 8).wrapping_mul(mul);
        let d = fetch(len - 16).wrapping_mul(K2);
        return hash16(
            a.wrapping_add(b)
                .rotate_right(43)
                .wrapping_add(c.rotate_right(30))
                .wrapping_add(d),
            a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
                .wrapping_add(c),
            mul,
        );
    }
    if len <= 64 {
        let mul = K2.wrapping_add(len64 * 2);
        let a = fetch(0).wrapping_mul(K2);
        let b = fetch(8);
        let c = fetch(len - 8).wrapping_mul(mul);
        let d = fetch(len - 16).wrapping_mul(K2);
        let y = a
            .wrapping_add(b)
            .rotate_right(43)
            .wrapping_add(c.rotate_right(30))
            .wrapping_add(d);
        let z = hash16(
            y,
            a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
                .wrapping_add(c),
            mul,
        );
        let e = fetch(16).wrapping_mul(mul);
        let f = fetch(24);
        let g = y.wrapping_add(fetch(len - 32)).wrapping_mul(mul);
        let h = z.wrapping_add(fetch(len - 24)).wrapping_mul(mul);
        return hash16(
            e.wrapping_add(f)
                .rotate_right(43)
                .wrapping_add(g.rotate_right(30))
                .wrapping_add(h),
            e.wrapping_add(f.wrapping_add(a).rotate_right(18))
                .wrapping_add(g),
            mul,
        );
    }
    let seed: u64 = 81;
    let mut x = seed;
    let mut y = seed.wrapping_mul(K1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(K2).wrapping_add(113)).wrapping_mul(K2);
    let (mut v, mut w) = ((0u64, 0u64), (0u64, 0u64));
    x = x.wrapping_mul(K2).wrapping_add(fetch(0));
    let end = ((len - 1) / 64) * 64;
    let last64 = end + ((len - 1) & 63) - 63;
    let mut at = 0;
    loop {
        x = x
            .wrapping_add(y)
            .wrapping_add(v.0)
            .wrapping_add(fetch(at + 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        y = y
            .wrapping_add(v.1)
            .wrapping_add(fetch(at + 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch(at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak32(at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak32(at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch(at + 16)));
        std::mem::swap(&mut z, &mut x);
        at += 64;
        if at == end {
            break;
        }
    }
    let mul = K1.wrapping_add((z & 0xff) << 1);
    at = last64;
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x
        .wrapping_add(y)
        .wrapping_add(v.0)
        .wrapping_add(fetch(at + 8))
        .rotate_right(37)
        .wrapping_mul(mul);
    y = y
        .wrapping_add(v.1)
        .wrapping_add(fetch(at + 48))
        .rotate_right(42)
        .wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y
        .wrapping_add(v.0.wrapping_mul(9))
        .wrapping_add(fetch(at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak32(at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak32(at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch(at + 16)));
    std::mem::swap(&mut z, &mut x);
    hash16(
        hash16(v.0, w.0, mul)
            .wrapping_add(shift_mix(y).wrapping_mul(K0))
            .wrapping_add(z),
        hash16(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn farmhash_agrees_with_tf_fingerprint() {
        // `tf.fingerprint` of these strings, by TensorFlow 2.21.
        for (text, expected) in [
            ("", 11160318154034397263u64),
            ("a", 12917804110809363939),
            ("abcd", 1897425971756105985),
            ("abcdefgh", 18368443631171807497),
            ("abcdefghijklmnopq", 11394395984755135400),
        ] {
            assert_eq!(fingerprint64(text.as_bytes()), expected, "{text:?}");
        }
        assert_eq!(fingerprint64(&[b'x'; 40]), 17003596230054984852);
        assert_eq!(fingerprint64(&[b'y'; 100]), 17121492607157028355);
        // Around 128 bytes, where the `farmhash` crate goes wrong.
        assert_eq!(fingerprint64(&[b'z'; 128]), 5180972258444977603);
        assert_eq!(fingerprint64(&[b'z'; 129]), 7040814056546431796);
        let bytes: Vec<u8> = (0..200).collect();
        assert_eq!(fingerprint64(&bytes), 525935771297148851);
        assert_eq!(fingerprint64(&b"abc".repeat(70)), 14963634245946022385);
    }

    proptest::proptest! {
        /// Every length of input has its fingerprint (the word reads stay within the input).
        #[test]
        fn every_input_has_a_fingerprint(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            fingerprint64(&bytes);
        }
    }
}
