//! GOAL text → [`Schedule`], in one linear pass over the bytes.
//!
//! Accepts the grammar of `docs/loggops.md` §2: comments (`//` to the end of
//! the line, `/* … */` across lines) and blank lines wherever a statement may
//! start, optional blanks between distinct tokens (`10b`, `tag0`,
//! `l1:send`), wildcards (`-1`), labels in any order and dependencies after
//! both labels. Every problem is an error with its line, column and what was
//! expected: an unknown label, a dependency cycle, a peer or rank outside
//! `num_ranks`, a missing or misplaced rank block, numbers beyond the limits.

use super::{Kind, Op, Schedule, ANY, MAX_RANKS, MAX_UNIT};
use std::collections::HashMap;
use std::fmt;

/// A GOAL text that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// What was wrong, or what was expected there.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
    line_start: usize,
}

type Result<T> = std::result::Result<T, ParseError>;

impl<'a> Cursor<'a> {
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError { line: self.line, column: self.at - self.line_start + 1, message: message.into() }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Blanks (not newlines).
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn newline(&mut self) {
        self.at += 1;
        self.line += 1;
        self.line_start = self.at;
    }

    /// Blanks, newlines and comments: what may come before a statement.
    fn gaps(&mut self) -> Result<()> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.at += 1,
                Some(b'\n') => self.newline(),
                Some(b'/') if self.text.get(self.at + 1) == Some(&b'/') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.at += 1;
                    }
                }
                Some(b'/') if self.text.get(self.at + 1) == Some(&b'*') => {
                    let open = self.error("this comment is never closed (expected */)");
                    self.at += 2;
                    loop {
                        match self.peek() {
                            None => return Err(open),
                            Some(b'*') if self.text.get(self.at + 1) == Some(&b'/') => {
                                self.at += 2;
                                break;
                            }
                            Some(b'\n') => self.newline(),
                            Some(_) => self.at += 1,
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The end of a statement: blanks, an optional `//` comment, then a newline or the end.
    fn end_of_line(&mut self) -> Result<()> {
        self.blanks();
        if self.peek() == Some(b'\r') {
            self.at += 1;
        }
        if self.text[self.at..].starts_with(b"//") {
            while !matches!(self.peek(), None | Some(b'\n')) {
                self.at += 1;
            }
        }
        match self.peek() {
            None => Ok(()),
            Some(b'\n') => {
                self.newline();
                Ok(())
            }
            Some(_) => Err(self.error("expected the end of the line")),
        }
    }

    fn eat(&mut self, literal: &str) -> bool {
        if self.text[self.at..].starts_with(literal.as_bytes()) {
            self.at += literal.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, literal: &str) -> Result<()> {
        self.blanks();
        if self.eat(literal) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{literal}`")))
        }
    }

    fn uint(&mut self, what: &str) -> Result<u64> {
        self.blanks();
        let start = self.at;
        let mut value: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d - b'0')))
                .ok_or_else(|| self.error(format!("{what} is beyond 2^64 − 1")))?;
            self.at += 1;
        }
        if self.at == start {
            return Err(self.error(format!("expected {what} (a number)")));
        }
        Ok(value)
    }

    /// A number or `-1` (the wildcard).
    fn uint_or_any(&mut self, what: &str) -> Result<Option<u64>> {
        self.blanks();
        if self.eat("-1") {
            Ok(None)
        } else {
            self.uint(what).map(Some)
        }
    }

    /// `[A-Za-z][A-Za-z0-9_]*` at the cursor (no blanks skipped).
    fn word(&mut self) -> Option<&'a str> {
        let start = self.at;
        if !matches!(self.peek(), Some(b'A'..=b'Z' | b'a'..=b'z')) {
            return None;
        }
        while matches!(self.peek(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_')) {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at]).ok()
    }
}

/// One statement of a block.
enum Statement<'a> {
    Op(Option<&'a str>, Op),
    Dependency { dependent: &'a str, on_start: bool, prerequisite: &'a str, column: usize },
    End,
}

const KEYWORDS: [&str; 5] = ["send", "recv", "calc", "rank", "num_ranks"];

fn statement<'a>(c: &mut Cursor<'a>, ranks: u32) -> Result<Statement<'a>> {
    if c.eat("}") {
        c.end_of_line()?;
        return Ok(Statement::End);
    }
    let column = c.at - c.line_start + 1;
    let save = c.at;
    let mut label = None;
    if let Some(word) = c.word() {
        if KEYWORDS.contains(&word) {
            c.at = save;
        } else {
            c.blanks();
            if c.eat(":") {
                label = Some(word);
            } else if c.eat("requires") || c.eat("irequires") {
                let on_start = c.text[c.at - 9..c.at] == *b"irequires";
                c.blanks();
                let prerequisite = c.word().ok_or_else(|| c.error("expected a label after requires"))?;
                c.end_of_line()?;
                return Ok(Statement::Dependency { dependent: word, on_start, prerequisite, column });
            } else {
                return Err(c.error(format!("expected `:`, `requires` or `irequires` after `{word}`")));
            }
        }
    }
    c.blanks();
    let op = if c.eat("send") || c.eat("recv") {
        let kind = if c.text[c.at - 4..c.at] == *b"send" { Kind::Send } else { Kind::Recv };
        let size = c.uint("a size in bytes")?;
        c.expect("b")?;
        c.expect(if kind == Kind::Send { "to" } else { "from" })?;
        let peer = if kind == Kind::Send {
            c.blanks();
            if c.text[c.at..].starts_with(b"-1") {
                return Err(c.error("a send needs a destination rank; -1 (any) is only for receives"));
            }
            Some(c.uint("a destination rank")?)
        } else {
            c.uint_or_any("a source rank or -1")?
        };
        if let Some(p) = peer {
            if p >= u64::from(ranks) {
                return Err(c.error(format!("rank {p} is outside num_ranks {ranks} (0 to {})", ranks - 1)));
            }
        }
        let (mut tag, mut cpu, mut nic) = (0, 0, 0);
        c.blanks();
        if c.eat("tag") {
            tag = match c.uint_or_any("a tag or -1")? {
                None => ANY,
                Some(t) if t < u64::from(ANY) => t as u32,
                Some(t) => return Err(c.error(format!("tag {t} is beyond {}", ANY - 1))),
            };
        }
        c.blanks();
        if c.eat("cpu") {
            cpu = unit(c, "cpu")?;
        }
        c.blanks();
        if c.eat("nic") {
            nic = unit(c, "nic")?;
        }
        Op { kind, size, peer: peer.map_or(ANY, |p| p as u32), tag, cpu, nic, rank: 0 }
    } else if c.eat("calc") {
        let size = c.uint("a duration in ns")?;
        c.blanks();
        let cpu = if c.eat("cpu") { unit(c, "cpu")? } else { 0 };
        Op { kind: Kind::Calc, size, peer: 0, tag: 0, cpu, nic: 0, rank: 0 }
    } else {
        return Err(c.error("expected a statement: `send`, `recv`, `calc`, `LABEL:`, `A requires B` or `}`"));
    };
    c.end_of_line()?;
    Ok(Statement::Op(label, op))
}

fn unit(c: &mut Cursor<'_>, what: &str) -> Result<u8> {
    let v = c.uint(what)?;
    u8::try_from(v).ok().filter(|&v| v <= MAX_UNIT).ok_or_else(|| c.error(format!("{what} {v} is beyond {MAX_UNIT}")))
}

/// Reads GOAL text.
///
/// # Errors
/// The first problem, with its line and column.
pub fn parse(text: &str) -> std::result::Result<Schedule, ParseError> {
    parse_with(text, usize::MAX, &mut |_| {})
}

/// [`parse`] with a cap on operations (an error at the first op beyond
/// `max_ops`) and `progress(bytes read)` after every rank block (a worker
/// reports it; it is called once per block, so keep it cheap).
///
/// # Errors
/// The first problem, with its line and column.
pub fn parse_with(
    text: &str,
    max_ops: usize,
    progress: &mut dyn FnMut(usize),
) -> std::result::Result<Schedule, ParseError> {
    let mut c = Cursor { text: text.as_bytes(), at: 0, line: 1, line_start: 0 };
    c.gaps()?;
    if !c.eat("num_ranks") {
        return Err(c.error("expected `num_ranks N` first"));
    }
    let ranks = c.uint("the number of ranks")?;
    if ranks == 0 || ranks > u64::from(MAX_RANKS) {
        return Err(c.error(format!("num_ranks must be in 1..={MAX_RANKS}")));
    }
    let ranks = ranks as u32;
    c.end_of_line()?;
    let mut schedule = Schedule::default();
    let mut labels: HashMap<&str, u32> = HashMap::new();
    for r in 0..ranks {
        c.gaps()?;
        if c.peek().is_none() {
            return Err(c.error(format!("block `rank {r}` is missing (num_ranks {ranks})")));
        }
        if !c.eat("rank") {
            return Err(c.error(format!("expected `rank {r} {{`")));
        }
        let got = c.uint("a rank")?;
        if got != u64::from(r) {
            return Err(
                c.error(format!("expected block `rank {r}` here (blocks come in rank order), found rank {got}"))
            );
        }
        c.expect("{")?;
        c.end_of_line()?;
        labels.clear();
        let base = schedule.ops.len() as u32;
        let first_dep = schedule.deps.len();
        let mut lines: Vec<(usize, usize)> = Vec::new();
        loop {
            c.gaps()?;
            if c.peek().is_none() {
                return Err(c.error(format!("block `rank {r}` is not closed (expected `}}`)")));
            }
            let line = c.line;
            match statement(&mut c, ranks)? {
                Statement::End => break,
                Statement::Op(label, op) => {
                    if schedule.ops.len() >= max_ops.min(super::MAX_OPS) {
                        return Err(ParseError {
                            line,
                            column: 1,
                            message: format!("more than {} operations (the limit here)", max_ops.min(super::MAX_OPS)),
                        });
                    }
                    let i = schedule.push(r, op, label.unwrap_or(""));
                    if let Some(l) = label {
                        labels.entry(l).or_insert(i);
                    }
                }
                Statement::Dependency { dependent, on_start, prerequisite, column } => {
                    let find = |l: &str| {
                        labels.get(l).copied().ok_or_else(|| ParseError {
                            line,
                            column,
                            message: format!("unknown label `{l}` in rank {r} (a dependency must follow both labels)"),
                        })
                    };
                    schedule.depend(find(dependent)?, find(prerequisite)?, on_start);
                    lines.push((line, column));
                }
            }
        }
        schedule.close(r + 1);
        check_cycles(&schedule, base, first_dep, &lines, r)?;
        progress(c.at);
    }
    Ok(schedule)
}

/// Kahn's algorithm over one rank's dependencies: a cycle is an error naming one of its lines.
fn check_cycles(s: &Schedule, base: u32, first_dep: usize, lines: &[(usize, usize)], r: u32) -> Result<()> {
    let n = (s.ops.len() as u32 - base) as usize;
    let deps = &s.deps[first_dep..];
    if deps.is_empty() {
        return Ok(());
    }
    let mut indegree = vec![0u32; n];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(dependent, prerequisite, _) in deps {
        indegree[(dependent - base) as usize] += 1;
        after[(prerequisite - base) as usize].push((dependent - base) as usize);
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for &j in &after[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    let (k, &(dependent, prerequisite, _)) = deps
        .iter()
        .enumerate()
        .find(|(_, d)| indegree[(d.0 - base) as usize] > 0 && indegree[(d.1 - base) as usize] > 0)
        .unwrap_or((0, &deps[0]));
    let (line, column) = lines[k];
    Err(ParseError {
        line,
        column,
        message: format!(
            "dependency cycle in rank {r}: {} waits for {}, which waits (directly or not) for it",
            s.describe(dependent),
            s.describe(prerequisite)
        ),
    })
}
