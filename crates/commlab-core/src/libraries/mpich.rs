//! MPICH's collective selection (`docs/libraries.md`): the JSON selection
//! tree (`maint/tuning/coll/mpir/generic.json` of MPICH 5.0.1, the file
//! `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE` replaces) and its evaluation
//! as `src/mpi/coll/src/csel.c` does it.
//!
//! A tree is nested JSON objects whose keys are conditions
//! (`comm_size<8`, `avg_msg_size<=12288`, `count<pow2`, `…=any`) or, at a
//! leaf, `algorithm=NAME`. At each level the first key whose condition
//! holds is entered; nothing backtracks. [`parse`] reads any such file (the
//! default below, or one the Chooser exported), [`select`] walks it.
//!
//! Two readings follow the code rather than the key's spelling:
//! - `comm_size<N` is tested as `comm_size <= N` (csel.c compares
//!   `local_size <= val` for both `<` and `<=`);
//! - `count<pow2` compares the call's count with the largest power of two
//!   not above `p`.

#![allow(clippy::match_same_arms, reason = "one arm per library algorithm, as the sources list them")]
use super::{pof2, Query};
use crate::choose::Collective;

/// MPICH's release the default tree is transcribed from.
pub const VERSION: &str = "MPICH 5.0.1";

/// A condition of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// `collective=NAME` (MPICH's name: `allreduce`, `reduce_scatter`, …).
    Collective(String),
    /// `comm_type=intra` (true) or `comm_type=inter`.
    Intra(bool),
    /// `comm_size<N`: tested as `≤ N`, as csel.c does.
    CommSizeLt(u64),
    /// `comm_size<=N`.
    CommSizeLe(u64),
    /// `comm_size=pow2`.
    CommSizePow2,
    /// `comm_size=node_comm_size`: the communicator is one node's.
    CommSizeNode,
    /// `avg_msg_size<=N` (bytes).
    AvgLe(u64),
    /// `avg_msg_size<N`.
    AvgLt(u64),
    /// `total_msg_size<=N` (bytes).
    TotalLe(u64),
    /// `total_msg_size<N`.
    TotalLt(u64),
    /// `count<=N` (elements).
    CountLe(u64),
    /// `count<pow2`: the count is below the largest power of two ≤ p.
    CountLtPow2,
    /// `comm_avg_ppn<=N`.
    PpnLe(u64),
    /// `comm_avg_ppn<N`.
    PpnLt(u64),
    /// `is_commutative=yes|no`.
    Commutative(bool),
    /// `is_op_built_in=yes|no`.
    OpBuiltIn(bool),
    /// `is_sendbuf_inplace=yes|no`.
    InPlace(bool),
    /// `is_block_regular=yes|no`.
    BlockRegular(bool),
    /// `is_node_consecutive=yes|no`.
    NodeConsecutive(bool),
    /// `is_multi_threaded=yes|no`.
    MultiThreaded(bool),
    /// `comm_hierarchy=parent` (true) or `=node`/`=node_roots`.
    Hierarchy(bool),
    /// `…=any`: always holds.
    Any,
    /// `algorithm=NAME`: a leaf; its children are the algorithm's parameters.
    Algorithm(String),
    /// A parameter under an algorithm (`k=2`), kept as written.
    Param(String),
}

/// One key and what is nested under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The condition.
    pub key: Key,
    /// The key as written.
    pub text: String,
    /// Line of the key in the file (1-based).
    pub line: usize,
    /// Nested keys, in file order.
    pub children: Vec<Node>,
}

/// A file that is not a selection tree: where, and what was expected (the
/// GOAL reader's error type: line, column, message).
pub use crate::goal::ParseError;

/// Nesting deeper than this is refused (a real tree is under 10 deep).
pub const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Reader<'_> {
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_space(&mut self) {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.bump();
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError { line: self.line, column: self.column, message: message.into() }
    }

    fn expect(&mut self, want: char, what: &str) -> Result<(), ParseError> {
        self.skip_space();
        match self.chars.peek() {
            Some(&c) if c == want => {
                self.bump();
                Ok(())
            }
            Some(&c) => Err(self.error(format!("expected {what}, found {c:?}"))),
            None => Err(self.error(format!("expected {what}, found the end of the file"))),
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.expect('"', "a key in double quotes")?;
        let mut s = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(self.error("a key's closing double quote is missing")),
                Some('"') => return Ok(s),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\' | '/')) => s.push(c),
                    _ => return Err(self.error("only \\\", \\\\ and \\/ escapes can appear in a key")),
                },
                Some(c) => s.push(c),
            }
        }
    }

    /// An object's members; the opening brace is already read.
    fn members(&mut self, depth: usize) -> Result<Vec<Node>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let mut nodes = Vec::new();
        self.skip_space();
        if self.chars.peek() == Some(&'}') {
            self.bump();
            return Ok(nodes);
        }
        loop {
            self.skip_space();
            let (line, column) = (self.line, self.column);
            let text = self.string()?;
            let key = parse_key(&text).map_err(|message| ParseError { line, column, message })?;
            self.expect(':', "':' after the key")?;
            self.expect('{', "'{' (every value in a selection tree is an object)")?;
            let children = self.members(depth + 1)?;
            nodes.push(Node { key, text, line, children });
            self.skip_space();
            match self.bump() {
                Some(',') => {}
                Some('}') => return Ok(nodes),
                Some(c) => return Err(self.error(format!("expected ',' or '}}', found {c:?}"))),
                None => return Err(self.error("expected ',' or '}', found the end of the file")),
            }
        }
    }
}

fn number(text: &str, key: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("{key:?}: {text:?} is not a whole number"))
}

fn yes_no(text: &str, key: &str) -> Result<bool, String> {
    match text {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!("{key:?}: expected yes or no")),
    }
}

/// One key. Keys under an `algorithm=` are parameters and are not parsed.
fn parse_key(text: &str) -> Result<Key, String> {
    let (name, rest) = match text.find(['<', '=']) {
        Some(i) => text.split_at(i),
        None => return Ok(Key::Param(text.to_owned())),
    };
    let (op, value) = if let Some(v) = rest.strip_prefix("<=") {
        ("<=", v)
    } else if let Some(v) = rest.strip_prefix('<') {
        ("<", v)
    } else {
        ("=", &rest[1..])
    };
    if op == "=" && value == "any" {
        return Ok(Key::Any);
    }
    Ok(match (name, op) {
        ("collective", "=") => Key::Collective(value.to_owned()),
        ("algorithm", "=") => Key::Algorithm(value.to_owned()),
        ("comm_type", "=") => match value {
            "intra" => Key::Intra(true),
            "inter" => Key::Intra(false),
            _ => return Err(format!("{text:?}: comm_type is intra or inter")),
        },
        ("comm_size", "=") => match value {
            "pow2" => Key::CommSizePow2,
            "node_comm_size" => Key::CommSizeNode,
            _ => return Err(format!("{text:?}: comm_size= takes pow2, node_comm_size or any")),
        },
        ("comm_size", "<") => Key::CommSizeLt(number(value, text)?),
        ("comm_size", "<=") => Key::CommSizeLe(number(value, text)?),
        ("avg_msg_size", "<") => Key::AvgLt(number(value, text)?),
        ("avg_msg_size", "<=") => Key::AvgLe(number(value, text)?),
        ("total_msg_size", "<") => Key::TotalLt(number(value, text)?),
        ("total_msg_size", "<=") => Key::TotalLe(number(value, text)?),
        ("count", "<") if value == "pow2" => Key::CountLtPow2,
        ("count", "<=") => Key::CountLe(number(value, text)?),
        ("comm_avg_ppn", "<") => Key::PpnLt(number(value, text)?),
        ("comm_avg_ppn", "<=") => Key::PpnLe(number(value, text)?),
        ("is_commutative", "=") => Key::Commutative(yes_no(value, text)?),
        ("is_op_built_in", "=") => Key::OpBuiltIn(yes_no(value, text)?),
        ("is_sendbuf_inplace", "=") => Key::InPlace(yes_no(value, text)?),
        ("is_block_regular", "=") => Key::BlockRegular(yes_no(value, text)?),
        ("is_node_consecutive", "=") => Key::NodeConsecutive(yes_no(value, text)?),
        ("is_multi_threaded", "=") => Key::MultiThreaded(yes_no(value, text)?),
        ("comm_hierarchy", "=") => match value {
            "parent" => Key::Hierarchy(true),
            "node" | "node_roots" => Key::Hierarchy(false),
            _ => return Err(format!("{text:?}: comm_hierarchy is parent, node, node_roots or any")),
        },
        _ => Key::Param(text.to_owned()),
    })
}

/// Reads a selection tree (any MPICH tuning JSON of nested objects).
///
/// # Errors
/// Text that is not nested objects of known keys, with its line and column.
pub fn parse(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut r = Reader { chars: text.chars().peekable(), line: 1, column: 1 };
    r.expect('{', "'{' opening the file")?;
    let nodes = r.members(0)?;
    r.skip_space();
    if r.chars.peek().is_some() {
        return Err(r.error("text after the closing '}'"));
    }
    Ok(nodes)
}

/// MPICH's name of a collective.
pub fn collective_name(c: Collective) -> &'static str {
    match c {
        Collective::Broadcast => "bcast",
        Collective::Reduce => "reduce",
        Collective::Allreduce => "allreduce",
        Collective::Allgather => "allgather",
        Collective::ReduceScatter => "reduce_scatter",
        Collective::AllToAll => "alltoall",
    }
}

/// What the walk reads of a call: the sizes csel.c computes.
fn holds(key: &Key, q: &Query) -> bool {
    let p = u64::from(q.p);
    let d = u64::from(q.dtype_size.max(1));
    let count = q.call_count();
    // get_avg_msgsize: the vector for bcast/reduce/allreduce, one block
    // for alltoall (csel.c does not define it for the others).
    let avg = count * d;
    // get_total_msgsize: × p for every per-rank count; reduce_scatter's
    // count is already the sum of its recvcounts.
    let total = match q.collective {
        Collective::ReduceScatter => count * d,
        _ => count * d * p,
    };
    match key {
        Key::Collective(name) => name == collective_name(q.collective),
        Key::Intra(intra) => *intra,
        Key::CommSizeLt(n) | Key::CommSizeLe(n) => p <= *n,
        Key::CommSizePow2 => q.p.is_power_of_two(),
        Key::CommSizeNode | Key::Hierarchy(_) => false,
        Key::InPlace(b) | Key::MultiThreaded(b) => !*b,
        Key::AvgLe(n) => avg <= *n,
        Key::AvgLt(n) => avg < *n,
        Key::TotalLe(n) => total <= *n,
        Key::TotalLt(n) => total < *n,
        Key::CountLe(n) => count <= *n,
        Key::CountLtPow2 => count < u64::from(pof2(q.p)),
        Key::PpnLe(n) => 1 <= *n,
        Key::PpnLt(n) => 1 < *n,
        Key::Commutative(b) | Key::OpBuiltIn(b) | Key::BlockRegular(b) | Key::NodeConsecutive(b) => *b,
        Key::Any => true,
        Key::Algorithm(_) | Key::Param(_) => false,
    }
}

/// The algorithm the tree picks for `q`, with the line of its key, or `None`
/// where the walk ends without one (MPICH then falls back to its `auto`).
/// The communicator is flat (one rank per node), single-threaded.
pub fn select<'t>(tree: &'t [Node], q: &Query) -> Option<&'t Node> {
    let mut level = tree;
    loop {
        if let Some(leaf) = level.iter().find(|n| matches!(n.key, Key::Algorithm(_))) {
            return Some(leaf);
        }
        level = &level.iter().find(|n| holds(&n.key, q))?.children;
    }
}

/// The algorithm name of a leaf from [`select`].
pub fn algorithm(node: &Node) -> &str {
    match &node.key {
        Key::Algorithm(name) => name,
        _ => "",
    }
}

/// Ours for an MPICH algorithm, or `None` where we have none.
pub fn ours(collective: Collective, name: &str) -> Option<&'static str> {
    let short = name.split("_intra_").nth(1)?;
    Some(match (collective, short) {
        (Collective::Broadcast | Collective::Reduce, "binomial") => "binomial",
        (Collective::Broadcast, "scatter_ring_allgather") => "scatter-allgather",
        (Collective::Allreduce | Collective::Allgather, "recursive_doubling") => "recursive-doubling",
        (Collective::Allreduce, "reduce_scatter_allgather") => "rabenseifner",
        (Collective::Allreduce | Collective::Allgather, "ring") => "ring",
        (Collective::Allgather | Collective::AllToAll, "brucks") => "bruck",
        (Collective::Reduce, "reduce_scatter_gather") => "reduce-scatter-gather",
        (Collective::ReduceScatter, "recursive_halving") => "recursive-halving",
        (Collective::ReduceScatter | Collective::AllToAll, "pairwise") => "pairwise",
        (Collective::AllToAll, "scattered") => "linear",
        _ => return None,
    })
}

/// Why an MPICH algorithm has no counterpart among ours, in words.
pub fn unmatched(name: &str) -> &'static str {
    if name.contains("scatter_recursive_doubling_allgather") {
        "a binomial scatter, then a recursive-doubling allgather: ours scatters, then runs a ring"
    } else if name.contains("_smp") {
        "node-aware: it needs a node hierarchy"
    } else if name.contains("recursive_doubling") {
        "recursive doubling of the whole vector, for non-commutative operations"
    } else {
        "no algorithm of ours runs this schedule"
    }
}

/// The default tree, parsed once (the tests check that it parses).
pub fn default_tree() -> &'static [Node] {
    static TREE: std::sync::OnceLock<Vec<Node>> = std::sync::OnceLock::new();
    TREE.get_or_init(|| parse(DEFAULT).unwrap_or_default())
}

/// MPICH 5.0.1's `maint/tuning/coll/mpir/generic.json`, the branches of the
/// six collectives commlab compares (intra-communicator), transcribed key
/// for key in file order (lines 2–97, 99–141, 142–173, 206–276, 277–315,
/// 434–476 of that file).
pub const DEFAULT: &str = r#"{
  "collective=bcast": { "comm_type=intra": {
    "comm_size<8": {
      "comm_hierarchy=parent": {
        "avg_msg_size<=0": { "algorithm=MPIR_Bcast_intra_smp": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_binomial": {} } },
      "comm_hierarchy=any": {
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_binomial": {} } } },
    "comm_size=pow2": {
      "comm_hierarchy=parent": {
        "avg_msg_size<=0": { "algorithm=MPIR_Bcast_intra_smp": {} },
        "avg_msg_size<=12288": { "algorithm=MPIR_Bcast_intra_binomial": {} },
        "avg_msg_size<=524288": { "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {} } },
      "comm_hierarchy=any": {
        "avg_msg_size<=12288": { "algorithm=MPIR_Bcast_intra_binomial": {} },
        "avg_msg_size<=524288": { "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {} } } },
    "comm_size=any": {
      "comm_hierarchy=parent": {
        "avg_msg_size<=0": { "algorithm=MPIR_Bcast_intra_smp": {} },
        "avg_msg_size<=12288": { "algorithm=MPIR_Bcast_intra_binomial": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {} } },
      "comm_hierarchy=any": {
        "avg_msg_size<=12288": { "algorithm=MPIR_Bcast_intra_binomial": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {} } } } } },
  "collective=allreduce": { "comm_type=intra": {
    "avg_msg_size<=0": {
      "is_commutative=yes": { "algorithm=MPIR_Allreduce_intra_smp": {} },
      "is_commutative=no": { "algorithm=MPIR_Allreduce_intra_recursive_doubling": {} } },
    "avg_msg_size<=8": { "algorithm=MPIR_Allreduce_intra_recursive_doubling": {} },
    "avg_msg_size=any": {
      "is_op_built_in=no": { "algorithm=MPIR_Allreduce_intra_recursive_doubling": {} },
      "is_op_built_in=yes": {
        "count<pow2": { "algorithm=MPIR_Allreduce_intra_recursive_doubling": {} },
        "count=any": { "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {} } } } } },
  "collective=allgather": { "comm_type=intra": {
    "comm_size=pow2": {
      "total_msg_size<524288": { "algorithm=MPIR_Allgather_intra_recursive_doubling": {} },
      "total_msg_size=any": { "algorithm=MPIR_Allgather_intra_ring": {} } },
    "comm_size=any": {
      "total_msg_size<81920": { "algorithm=MPIR_Allgather_intra_brucks": {} },
      "total_msg_size=any": { "algorithm=MPIR_Allgather_intra_ring": {} } } } },
  "collective=reduce": { "comm_type=intra": {
    "comm_hierarchy=parent": {
      "avg_msg_size<=0": {
        "is_commutative=yes": { "algorithm=MPIR_Reduce_intra_smp": {} },
        "is_commutative=no": { "algorithm=MPIR_Reduce_intra_binomial": {} } },
      "avg_msg_size<=2048": { "algorithm=MPIR_Reduce_intra_binomial": {} },
      "avg_msg_size=any": {
        "is_op_built_in=yes": {
          "count<pow2": { "algorithm=MPIR_Reduce_intra_binomial": {} },
          "count=any": { "algorithm=MPIR_Reduce_intra_reduce_scatter_gather": {} } },
        "is_op_built_in=no": { "algorithm=MPIR_Reduce_intra_binomial": {} } } },
    "comm_hierarchy=any": {
      "avg_msg_size<=2048": { "algorithm=MPIR_Reduce_intra_binomial": {} },
      "avg_msg_size=any": {
        "is_op_built_in=yes": {
          "count<pow2": { "algorithm=MPIR_Reduce_intra_binomial": {} },
          "count=any": { "algorithm=MPIR_Reduce_intra_reduce_scatter_gather": {} } },
        "is_op_built_in=no": { "algorithm=MPIR_Reduce_intra_binomial": {} } } } } },
  "collective=reduce_scatter": { "comm_type=intra": {
    "is_commutative=yes": {
      "total_msg_size<524288": { "algorithm=MPIR_Reduce_scatter_intra_recursive_halving": {} },
      "total_msg_size=any": { "algorithm=MPIR_Reduce_scatter_intra_pairwise": {} } },
    "is_commutative=no": {
      "is_block_regular=yes": {
        "comm_size=pow2": { "algorithm=MPIR_Reduce_scatter_intra_noncommutative": {} },
        "comm_size=any": { "algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {} } },
      "is_block_regular=no": { "algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {} } } } },
  "collective=alltoall": { "comm_type=intra": {
    "is_sendbuf_inplace=yes": { "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {} },
    "is_sendbuf_inplace=no": {
      "comm_size<8": {
        "avg_msg_size<=32768": { "algorithm=MPIR_Alltoall_intra_scattered": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_pairwise": {} } },
      "comm_size=any": {
        "avg_msg_size<=256": { "algorithm=MPIR_Alltoall_intra_brucks": {} },
        "avg_msg_size<=32768": { "algorithm=MPIR_Alltoall_intra_scattered": {} },
        "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_pairwise": {} } } } } }
}"#;

/// MPICH's pick for `q` under the default tree: the algorithm's function
/// name as the JSON names it.
pub fn pick(q: &Query) -> Option<&'static str> {
    select(default_tree(), q).map(algorithm)
}
