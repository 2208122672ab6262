//! Typed handles: [`NodeId`] (a node of one scene's arena, generation-checked) and [`LightId`]
//! (an entry of one scene's light table).
//!
//! Both are plain `Copy` values at the bottom of the crate, so every layer — errors, effects,
//! the graph, the passes, the renderer trait — can name nodes and lights without depending on
//! the graph that hands them out.

use std::fmt;

/// A generation-checked handle to a node of one [`Scene`](crate::Scene).
///
/// A node id is a slot index plus the slot's generation; removing a node bumps the generation,
/// so an old id can never reach a node that later reuses the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId {
    index: u32,
    generation: u32,
}

impl NodeId {
    pub(crate) fn from_parts(index: u32, generation: u32) -> NodeId {
        NodeId { index, generation }
    }

    /// Slot index (stable while the node lives; reused after removal with a new generation).
    pub fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation when the id was handed out.
    pub(crate) fn generation(self) -> u32 {
        self.generation
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}v{}", self.index, self.generation)
    }
}

/// A handle to a light of one [`Scene`](crate::Scene)'s light table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LightId(pub(crate) u32);

impl LightId {
    /// Index in the scene's light table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Anything of one [`Scene`](crate::Scene) that can carry a name for look-up (book §3, "Names /
/// IDs"; see [`lookup`](crate::graph::lookup)): nodes keep their own name, the others have theirs in
/// the scene's name table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectRef {
    /// A node.
    Node(NodeId),
    /// A light of the light table.
    Light(LightId),
    /// The effect set on this node.
    Effect(NodeId),
    /// The transform controller with this index (in the order they were added).
    Controller(usize),
    /// The mesh controller with this index (in the order they were added).
    MeshController(usize),
    /// The IK controller with this index (in the order they were added).
    IkController(usize),
}
