//! Property: any finite `f32` written by the saver reads back as the same bits, and any tree
//! of nodes round-trips through `save` → `parse`.

use std::path::Path;

use plumb_scene::io::json::{self, NodeDoc, Real, SceneDoc, TransformDoc};
use proptest::prelude::*;

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>().prop_filter("finite", |x| x.is_finite()),
        Just(f32::MAX),
        Just(f32::MIN),
        Just(f32::MIN_POSITIVE),
        Just(1e-45),
        Just(-0.0),
    ]
}

fn real3() -> impl Strategy<Value = [Real; 3]> {
    [finite(), finite(), finite()].prop_map(|v| v.map(|x| Real::new(x).expect("finite")))
}

fn node() -> impl Strategy<Value = NodeDoc> {
    let leaf = (
        "[a-z]{0,4}",
        proptest::option::of(real3()),
        proptest::option::of(real3()),
    )
        .prop_map(|(name, translation, scale)| NodeDoc {
            name,
            transform: (translation.is_some() || scale.is_some()).then_some(TransformDoc {
                translation,
                scale,
                rotation: None,
                uniform_scale: None,
                matrix: None,
            }),
            ..NodeDoc::default()
        });
    leaf.prop_recursive(4, 32, 4, |inner| {
        (proptest::collection::vec(inner, 0..4), "[a-z]{0,4}").prop_map(|(children, name)| {
            NodeDoc {
                name,
                children,
                ..NodeDoc::default()
            }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn documents_round_trip_bit_for_bit(root in node(), background in proptest::option::of([finite(), finite(), finite(), finite()])) {
        let doc = SceneDoc {
            background: background.map(|v| v.map(|x| Real::new(x).expect("finite"))),
            root,
            ..SceneDoc::default()
        };
        let text = json::save(&doc);
        let back = json::parse(Path::new("p.json"), &text).expect("saved text parses");
        // PartialEq on f32 treats 0.0 == -0.0; compare the saved text too, which keeps signs.
        prop_assert_eq!(&back, &doc);
        prop_assert_eq!(json::save(&back), text);
    }
}
