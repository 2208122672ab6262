//! Mip generation of known images (even and odd sizes) and the texture constructors.
//!
//! The filter (see `texture::mip`): per axis, an even side takes texels `2i, 2i+1` with
//! weights (1, 1); an odd side `n > 1` maps to `m = ⌊n/2⌋` texels whose weights are the exact
//! overlaps (5 → 2: (2,2,1)/5 and (1,2,2)/5; 3 → 1: (1,1,1)/3; 7 → 3: (3,3,1), (2,3,2),
//! (1,3,3) over 7); a side of 1 is copied. Result `⌊S/D + ½⌋` per channel.

use plumb_raster::texture::{TexelFormat, Texture, MAX_TEXTURE_SIZE};
use plumb_raster::Error;

fn rgba(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
    let mut d = Vec::new();
    for y in 0..h {
        for x in 0..w {
            d.extend_from_slice(&f(x, y));
        }
    }
    Texture::from_rgba8(w, h, d).unwrap()
}

fn sizes(t: &Texture) -> Vec<(u32, u32)> {
    (0..t.level_count())
        .map(|i| {
            let l = t.level(i).unwrap();
            (l.width(), l.height())
        })
        .collect()
}

#[test]
fn two_by_two_box_rounds_half_up() {
    // Channels: r = 0,1,2,2 → (5+2)/4 = 1 (1.25 → 1); g = 255,255,255,254 → (1019+2)/4 = 255
    // (254.75 → 255); b = 1,2,1,2 → (6+2)/4 = 2 (1.5 → 2); a = 0,0,0,3 → (3+2)/4 = 1 (0.75 → 1).
    #[rustfmt::skip]
    let d = vec![
        0, 255, 1, 0,   1, 255, 2, 0,
        2, 255, 1, 0,   2, 254, 2, 3,
    ];
    let t = Texture::from_rgba8(2, 2, d).unwrap().with_generated_mips();
    assert_eq!(sizes(&t), vec![(2, 2), (1, 1)]);
    assert_eq!(t.level(1).unwrap().texel(0, 0), Some([1, 255, 2, 1]));
}

#[test]
fn checkerboard_averages_to_grey() {
    // 4×4 one-texel checker of 0 and 255: every 2×2 block has two of each → (510+2)/4 = 128;
    // then 2×2 of 128 → (512+2)/4 = 128.
    let t = rgba(4, 4, |x, y| {
        let v = if (x + y) % 2 == 0 { 255 } else { 0 };
        [v, v, v, 255]
    })
    .with_generated_mips();
    assert_eq!(sizes(&t), vec![(4, 4), (2, 2), (1, 1)]);
    for l in 1..3 {
        assert!(t
            .level(l)
            .unwrap()
            .to_texels()
            .iter()
            .all(|&p| p == [128, 128, 128, 255]));
    }
}

#[test]
fn odd_five_by_three() {
    // r = 10x (columns 0, 10, 20, 30, 40); g = 30y (rows 0, 30, 60); b = 3x + 50y.
    let t = rgba(5, 3, |x, y| {
        [(10 * x) as u8, (30 * y) as u8, (3 * x + 50 * y) as u8, 255]
    })
    .with_generated_mips();
    assert_eq!(sizes(&t), vec![(5, 3), (2, 1), (1, 1)]);
    // Level 1 (2×1). y weights (1,1,1)/3 for both texels.
    //  texel 0: x weights (2,2,1)/5 on columns 0,1,2.
    //    r = (2·0 + 2·10 + 1·20)/5 = 40/5 = 8.
    //    g = (0 + 30 + 60)/3 = 30.
    //    b: per row y, 2·(0+50y) + 2·(3+50y) + (6+50y) = 12 + 250y; rows 0..3 sum
    //       36 + 750 = 786; /15 = 52.4 → 52.
    //  texel 1: x weights (1,2,2)/5 on columns 2,3,4.
    //    r = (20 + 60 + 80)/5 = 32.
    //    b: per row (6+50y) + 2·(9+50y) + 2·(12+50y) = 48 + 250y; sum 144 + 750 = 894;
    //       /15 = 59.6 → 60.
    let l1 = t.level(1).unwrap();
    assert_eq!(l1.texel(0, 0), Some([8, 30, 52, 255]));
    assert_eq!(l1.texel(1, 0), Some([32, 30, 60, 255]));
    // Level 2 (1×1): x even (1,1), y = 1 copied: r = (8+32)/2 = 20; g = 30;
    // b = (52+60)/2 = 56 exactly.
    assert_eq!(t.level(2).unwrap().texel(0, 0), Some([20, 30, 56, 255]));
}

#[test]
fn odd_three_by_three_and_seven_by_one() {
    // 3×3 → 1×1: plain mean of 9 texels; r = 10·(x + 3y) = 0..80 → 360/9 = 40.
    let t = rgba(3, 3, |x, y| [(10 * (x + 3 * y)) as u8, 0, 0, 255]).with_generated_mips();
    assert_eq!(sizes(&t), vec![(3, 3), (1, 1)]);
    assert_eq!(t.level(1).unwrap().texel(0, 0), Some([40, 0, 0, 255]));

    // 7×1 → 3×1 → 1×1, r = 30x = 0, 30, …, 180.
    //  texel 0: (3·0 + 3·30 + 1·60)/7 = 150/7 = 21.43 → 21
    //  texel 1: (2·60 + 3·90 + 2·120)/7 = 630/7 = 90
    //  texel 2: (1·120 + 3·150 + 3·180)/7 = 1110/7 = 158.57 → 159
    //  level 2: 3 → 1, (21 + 90 + 159)/3 = 90.
    let t = rgba(7, 1, |x, _| [(30 * x) as u8, 0, 0, 255]).with_generated_mips();
    assert_eq!(sizes(&t), vec![(7, 1), (3, 1), (1, 1)]);
    let r: Vec<u8> = t
        .level(1)
        .unwrap()
        .to_texels()
        .iter()
        .map(|p| p[0])
        .collect();
    assert_eq!(r, vec![21, 90, 159]);
    assert_eq!(t.level(2).unwrap().texel(0, 0), Some([90, 0, 0, 255]));
}

#[test]
fn thin_column() {
    // 1×4 → 1×2 → 1×1, values 0, 100, 200, 255.
    //  (0+100)/2 = 50; (200+255)/2 = 227.5 → 228; (50+228)/2 = 139.
    let v = [0u8, 100, 200, 255];
    let t = rgba(1, 4, |_, y| [v[y as usize], 0, 0, 255]).with_generated_mips();
    assert_eq!(sizes(&t), vec![(1, 4), (1, 2), (1, 1)]);
    assert_eq!(t.level(1).unwrap().texel(0, 1), Some([228, 0, 0, 255]));
    assert_eq!(t.level(1).unwrap().texel(0, 0), Some([50, 0, 0, 255]));
    assert_eq!(t.level(2).unwrap().texel(0, 0), Some([139, 0, 0, 255]));
}

#[test]
fn terrain_bench_checker_first_texel() {
    // ../shared/bench/terrain.md: 256² checker, 32-texel squares, lines at x%32==0 or
    // y%32==0 = (20,20,20,255); square (0,0) (even) = (230,200,60,255).
    let t = rgba(256, 256, |x, y| {
        if x % 32 == 0 || y % 32 == 0 {
            [20, 20, 20, 255]
        } else if ((x / 32) + (y / 32)) % 2 == 0 {
            [230, 200, 60, 255]
        } else {
            [40, 90, 200, 128]
        }
    })
    .with_generated_mips();
    assert_eq!(t.level_count(), 9);
    // Level 1 (0,0) = texels (0,0), (1,0), (0,1) line-grey and (1,1) yellow:
    //  r = (3·20 + 230 + 2)/4 = 292/4 = 73; g = (3·20 + 200 + 2)/4 = 262/4 → 65;
    //  b = (3·20 + 60 + 2)/4 = 122/4 → 30; a = 255.
    assert_eq!(t.level(1).unwrap().texel(0, 0), Some([73, 65, 30, 255]));
    // Level 1 (1,1) = texels (2..4, 2..4), all yellow → unchanged.
    assert_eq!(t.level(1).unwrap().texel(1, 1), Some([230, 200, 60, 255]));
}

#[test]
fn chain_lengths() {
    let one = |w, h| Texture::from_rgba8(w, h, vec![0; (w * h * 4) as usize]).unwrap();
    assert_eq!(one(1, 1).with_generated_mips().level_count(), 1);
    assert_eq!(one(256, 256).with_generated_mips().level_count(), 9);
    // ⌊log2 16384⌋ + 1 = 15.
    assert_eq!(
        one(MAX_TEXTURE_SIZE, 1).with_generated_mips().level_count(),
        15
    );
    assert_eq!(
        sizes(&one(6, 5).with_generated_mips()),
        vec![(6, 5), (3, 2), (1, 1)]
    );
    // Regenerating replaces the chain (same result twice).
    let t = one(6, 5).with_generated_mips();
    assert_eq!(t.clone().with_generated_mips(), t);
}

#[test]
fn formats_convert_at_load() {
    let l8 = Texture::from_format(TexelFormat::L8, 2, 1, &[7, 200]).unwrap();
    assert_eq!(
        l8.level(0).unwrap().to_bytes(),
        &[7, 7, 7, 255, 200, 200, 200, 255]
    );
    let la8 = Texture::from_format(TexelFormat::La8, 1, 1, &[7, 9]).unwrap();
    assert_eq!(la8.level(0).unwrap().texel(0, 0), Some([7, 7, 7, 9]));
    let rgb = Texture::from_format(TexelFormat::Rgb8, 1, 1, &[1, 2, 3]).unwrap();
    assert_eq!(rgb.level(0).unwrap().texel(0, 0), Some([1, 2, 3, 255]));
    assert_eq!(rgb.format(), TexelFormat::Rgb8);
    let rgba = Texture::from_format(TexelFormat::Rgba8, 1, 1, &[1, 2, 3, 4]).unwrap();
    assert_eq!(rgba.level(0).unwrap().texel(0, 0), Some([1, 2, 3, 4]));
}

#[test]
fn from_image_maps_formats() {
    let img =
        image::DynamicImage::ImageLuma8(image::GrayImage::from_raw(2, 1, vec![5, 6]).unwrap());
    let t = Texture::from_image(&img).unwrap();
    assert_eq!((t.format(), t.width(), t.height()), (TexelFormat::L8, 2, 1));
    assert_eq!(t.level(0).unwrap().texel(1, 0), Some([6, 6, 6, 255]));
    // 16-bit goes through image's to_rgba8 (65535 → 255, 0 → 0).
    let img16 = image::DynamicImage::ImageRgba16(
        image::ImageBuffer::from_raw(1, 1, vec![65535u16, 0, 65535, 65535]).unwrap(),
    );
    let t = Texture::from_image(&img16).unwrap();
    assert_eq!(t.format(), TexelFormat::Rgba8);
    assert_eq!(t.level(0).unwrap().texel(0, 0), Some([255, 0, 255, 255]));
    // Row 0 of the image is row 0 of the texture (no flip).
    let img = image::DynamicImage::ImageRgb8(
        image::RgbImage::from_raw(1, 2, vec![1, 1, 1, 9, 9, 9]).unwrap(),
    );
    let t = Texture::from_image(&img).unwrap();
    assert_eq!(t.level(0).unwrap().texel(0, 0), Some([1, 1, 1, 255]));
}

#[test]
fn constructor_errors() {
    assert_eq!(
        Texture::from_rgba8(0, 4, vec![]).unwrap_err(),
        Error::InvalidSize {
            width: 0,
            height: 4,
            max: MAX_TEXTURE_SIZE
        }
    );
    assert!(matches!(
        Texture::from_format(TexelFormat::L8, MAX_TEXTURE_SIZE + 1, 1, &[]),
        Err(Error::InvalidSize {
            width: 16385,
            height: 1,
            ..
        })
    ));
    assert_eq!(
        Texture::from_format(TexelFormat::Rgb8, 2, 2, &[0; 11]).unwrap_err(),
        Error::BufferLength {
            what: "texture data (bytes)",
            expected: 12,
            actual: 11
        }
    );
    let img = image::DynamicImage::new_rgba8(0, 3);
    assert!(matches!(
        Texture::from_image(&img),
        Err(Error::InvalidSize { .. })
    ));
}

#[test]
fn from_levels_validates_the_chain() {
    let lvl = |w: u32, h: u32, v: u8| (w, h, vec![v; (w * h * 4) as usize]);
    // A full 4×2 chain: 4×2, 2×1, 1×1.
    let t = Texture::from_levels(vec![lvl(4, 2, 0), lvl(2, 1, 1), lvl(1, 1, 2)]).unwrap();
    assert_eq!(sizes(&t), vec![(4, 2), (2, 1), (1, 1)]);
    // A partial chain is allowed.
    assert_eq!(
        Texture::from_levels(vec![lvl(4, 4, 0), lvl(2, 2, 0)])
            .unwrap()
            .level_count(),
        2
    );
    // Wrong sizes, empty, past 1×1, bad length.
    assert!(matches!(
        Texture::from_levels(vec![]),
        Err(Error::Texture(_))
    ));
    assert!(matches!(
        Texture::from_levels(vec![lvl(4, 2, 0), lvl(2, 2, 0)]),
        Err(Error::Texture(_))
    ));
    assert!(matches!(
        Texture::from_levels(vec![lvl(5, 3, 0), lvl(3, 1, 0)]),
        Err(Error::Texture(_))
    ));
    assert!(matches!(
        Texture::from_levels(vec![lvl(1, 1, 0), lvl(1, 1, 0)]),
        Err(Error::Texture(_))
    ));
    assert!(matches!(
        Texture::from_levels(vec![lvl(2, 2, 0), (1, 1, vec![0; 3])]),
        Err(Error::BufferLength { .. })
    ));
    assert!(Texture::from_levels(vec![lvl(1, 1, 0)])
        .unwrap()
        .level(1)
        .is_none());
}
