//! The one error type of `plumb-scene`.
//!
//! Every fallible operation returns [`SceneError`]. Errors carry enough context (node ids and
//! names, limits, offending values) to be reported without the scene at hand. Nothing in this
//! crate panics on user data: non-finite numbers, stale ids, cycles, and exceeded limits all come
//! back as one of these variants.

use crate::values::id::NodeId;

/// Everything that can go wrong in the scene graph.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// A value handed to a setter or constructor was NaN or infinite.
    #[error("non-finite value for {what}")]
    NonFinite {
        /// Which quantity was rejected (e.g. `"translation"`).
        what: &'static str,
    },
    /// A matrix given as a rotation is not orthonormal with determinant +1 (within tolerance).
    #[error("matrix is not a rotation (orthonormal, determinant +1)")]
    NotARotation,
    /// A rotation given by a quaternion or an axis that is zero, so it names no rotation.
    #[error("{0} is zero and names no rotation")]
    ZeroRotation(&'static str),
    /// A transform has no inverse (a zero scale or a singular matrix).
    #[error("transform is singular and cannot be inverted")]
    SingularTransform,
    /// The id does not name a live node (it was removed, or belongs to another scene).
    #[error("stale or unknown node id {0}")]
    StaleId(NodeId),
    /// Attaching would put a node under itself or under one of its own descendants.
    #[error("attaching `{child}` under `{parent}` would create a cycle")]
    Cycle {
        /// Name of the would-be parent.
        parent: String,
        /// Name of the node being attached.
        child: String,
    },
    /// The node already has a parent; detach it first or use `reparent`.
    #[error("node `{0}` already has a parent")]
    AlreadyAttached(String),
    /// Children can only be attached to group or switch nodes, not geometry leaves.
    #[error("node `{0}` is a geometry leaf and cannot have children")]
    NotAGroup(String),
    /// The operation needs a geometry leaf.
    #[error("node `{0}` is not a geometry leaf")]
    NotAGeometry(String),
    /// The operation needs a switch node.
    #[error("node `{0}` is not a switch node")]
    NotASwitch(String),
    /// The given node is not a child of the given parent.
    #[error("`{child}` is not a child of `{parent}`")]
    NotAChild {
        /// Name of the parent.
        parent: String,
        /// Name of the node that is not its child.
        child: String,
    },
    /// The scene root cannot be detached, reparented or removed.
    #[error("the scene root cannot be detached, reparented or removed")]
    RootIsFixed,
    /// Creating another node would exceed the scene's node limit.
    #[error("node limit of {max} reached")]
    NodeLimit {
        /// The limit in force ([`crate::Limits::max_nodes`]).
        max: usize,
    },
    /// Attaching would make the tree deeper than the scene's depth limit.
    #[error("depth limit of {max} exceeded (attaching would reach depth {depth})")]
    DepthLimit {
        /// The limit in force ([`crate::Limits::max_depth`]).
        max: usize,
        /// The depth the deepest node would have had.
        depth: usize,
    },
    /// A mesh index points past the end of the vertex arrays.
    #[error("mesh index {index} out of range for {vertex_count} vertices")]
    IndexOutOfRange {
        /// The offending index value.
        index: u32,
        /// Number of vertices in the mesh.
        vertex_count: usize,
    },
    /// The index count does not fit the topology (e.g. not a multiple of 3 for triangles).
    #[error("{count} indices do not form whole {topology} primitives")]
    IndexCount {
        /// Name of the topology.
        topology: &'static str,
        /// The number of indices given.
        count: usize,
    },
    /// A per-vertex attribute array has the wrong length.
    #[error("attribute `{attribute}` has {actual} entries, expected {expected}")]
    AttributeLength {
        /// Which attribute (`"normals"`, `"colors"`, `"uv"`).
        attribute: &'static str,
        /// Number of vertices.
        expected: usize,
        /// Number of entries given.
        actual: usize,
    },
    /// More UV sets than [`crate::MAX_UV_SETS`].
    #[error("at most {max} uv sets are supported")]
    TooManyUvSets {
        /// The limit.
        max: usize,
    },
    /// More vertices than a `u32` index can address.
    #[error("mesh has {0} vertices; at most u32::MAX are addressable")]
    TooManyVertices(usize),
    /// Camera frame vectors are zero or parallel.
    #[error("degenerate camera frame: {0}")]
    DegenerateFrame(&'static str),
    /// Frustum parameters are empty or inverted (e.g. `near <= 0` for perspective).
    #[error("invalid frustum: {0}")]
    InvalidFrustum(&'static str),
    /// Viewport or depth range outside its valid domain.
    #[error("invalid viewport: {0}")]
    InvalidViewport(&'static str),
    /// More user culling planes than [`crate::MAX_USER_PLANES`].
    #[error("at most {max} user culling planes")]
    TooManyPlanes {
        /// The limit.
        max: usize,
    },
    /// A plane normal of zero length.
    #[error("plane normal must be non-zero")]
    DegeneratePlane,
    /// No light with this index in the scene's light table.
    #[error("unknown light #{0}")]
    UnknownLight(u32),
    /// The effect cannot sit on this kind of node (a local-only effect on a group, or a scene
    /// effect on a geometry leaf).
    #[error("effect `{effect}` cannot be placed on node `{node}`")]
    EffectPlacement {
        /// The effect's name.
        effect: &'static str,
        /// The node's name.
        node: String,
    },
    /// The effect lacks an input it needs from the node's mesh or transform.
    #[error("effect `{effect}` on node `{node}` needs {need}")]
    EffectInput {
        /// The effect's name.
        effect: &'static str,
        /// The node's name.
        node: String,
        /// What is missing.
        need: &'static str,
    },
    /// A constructor argument is out of its documented range (shape sizes and tessellation
    /// counts, see [`crate::values::shapes`]).
    #[error("invalid {what}: {message}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// Why it is refused.
        message: String,
    },
    /// One frame's clears would write more pixels than [`crate::Scene::max_clear_pixels`]
    /// allows (checked before the frame begins).
    #[error(
        "{what}: {pixels} pixels of the {width}x{height} target cleared bring the frame to \
         {total}, past the budget of {max} cleared pixels per frame (--max-clear-pixels)"
    )]
    ClearBudget {
        /// The layer node (`layer node `root/hud``) or the depth layers concerned.
        what: String,
        /// The pixels its clear writes.
        pixels: u64,
        /// The frame's cleared pixels with it (saturating).
        total: u64,
        /// The target's width.
        width: u32,
        /// The target's height.
        height: u32,
        /// The limit in force.
        max: u64,
    },
    /// A rendering backend failed.
    #[error("renderer: {0}")]
    Renderer(String),
    /// A definition graph of cyclic definitions is malformed, or instancing options are out
    /// of range (see [`crate::values::definition`] and [`crate::passes::instancing`]).
    #[error("definition `{symbol}`: {message}")]
    Definition {
        /// The symbol (or option) concerned.
        symbol: String,
        /// What is wrong, as a value a program can match.
        fault: DefinitionFault,
        /// The details.
        message: String,
    },
}

/// What is wrong in a [`SceneError::Definition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DefinitionFault {
    /// An edge names a symbol or model that is not defined.
    MissingSymbol,
    /// Two symbols or models share a name.
    DuplicateName,
    /// A symbol has no production, or a production has no edge.
    Empty,
    /// No terminal model is reachable from the symbol (a cycle of symbols that never draws).
    NoModelReachable,
    /// An edge transform is singular (determinant 0) or not finite.
    SingularEdge,
    /// A production weight, area threshold, cap or seed option is zero, negative, NaN or
    /// past its documented limit.
    BadOption,
}
