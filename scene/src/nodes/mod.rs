//! The node kinds, one file each: a kind's `impl Scene` API (create, query, edit), and the
//! hooks the passes call for it (`KindHooks`: its part of the text dump, its deep copy).
//!
//! | kind ([`NodeKind`]) | file | Wild Magic |
//! |---|---|---|
//! | group | [`group`] | `Node` |
//! | geometry | [`geometry`] | `Geometry` |
//! | switch | [`switch`] | `SwitchNode` |
//! | LOD | [`lod`] | `DlodNode` |
//! | billboard | [`billboard`] | `BillboardNode` |
//! | BSP | [`bsp`] | `BspNode` |
//! | region manager | [`region_manager`] | `ConvexRegionManager` |
//! | region | [`region`] | `ConvexRegion`, `Portal` |
//!
//! What is common to every kind — name, transform, bound, culling, render intent, dirty flags —
//! is on the node ([`node`](crate::graph::node)); what a kind adds is its variant of the node's data,
//! the one sum type `NodeData` beside it, whose discriminant is the public [`NodeKind`].
//!
//! # Adding a node kind
//!
//! 1. **Its variant** in `NodeData` and in [`NodeKind`] (`node.rs`), with its payload struct
//!    beside them (the arena stores the payload, so it is defined below this layer), and the
//!    arms the compiler then asks for there: `NodeData::kind`, `NodeData::visit` (which
//!    children drawing and picking visit: every child, the active one, or none for a leaf) and
//!    `NodeKind::name` (and the kind in `NodeKind::ALL`).
//! 2. **`nodes/<kind>.rs`**, a new file: its `impl Scene` (`add_<kind>`, getters and setters,
//!    each refusing other kinds with a typed error) and its `impl KindHooks` (its part of the
//!    text dump, its deep copy); then its one arm in `hooks` here.
//! 3. **`io/json/nodes/<kind>.rs`**, the second new file: the kind in scene files — `create`
//!    (the node under its parent), `link` (its links to its children, once they exist) and
//!    `save` — and its arms in the three dispatchers of `io/json/nodes/mod.rs` (and in
//!    `check_fields` if it has a field of its own). Its `NodeKindDoc` variant converts 1:1 to
//!    [`NodeKind`]; a unit test checks the two share every name.
//!
//! Culling's own orders (BSP slots back to front, portals) are in [`cull`](crate::passes::cull); a
//! kind that needs an order of its own adds an arm there.

use crate::graph::node::NodeData;

pub use crate::graph::node::NodeKind;

pub mod billboard;
pub mod bsp;
pub mod geometry;
pub mod group;
pub(crate) mod kind;
pub mod lod;
pub mod region;
pub mod region_manager;
pub mod switch;

pub(crate) use kind::{display_name, KindHooks};

/// The hooks of a node's kind: the one dispatch from a node's data to its kind's file.
pub(crate) fn hooks(data: &NodeData) -> &dyn KindHooks {
    match data {
        NodeData::Group => &group::Group,
        NodeData::Geometry(g) => g,
        NodeData::Switch(s) => s,
        NodeData::Lod(l) => &**l,
        NodeData::Billboard(_) => &billboard::Billboard,
        NodeData::Bsp(b) => &**b,
        NodeData::RegionManager(m) => &**m,
        NodeData::Region(r) => &**r,
    }
}
