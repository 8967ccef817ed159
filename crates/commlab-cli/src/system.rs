//! The CLI's System: `--system`, `--nodes` and `--nccl-version` read once
//! into a [`System`] (`commlab_api::system`), each refusal naming its flag.

use crate::reduce::ArgError;
use commlab_api::system::System;
use commlab_api::ApiError;
use commlab_core::libraries::nccl::Version;
use commlab_core::limits::IntRange;

/// `--system`'s help: the presets and the custom keys, as the api reads them.
pub fn system_help() -> String {
    let presets: Vec<&str> = commlab_core::systems::PRESETS.iter().map(|p| p.id).collect();
    let keys: Vec<String> = commlab_core::systems::CUSTOM_KEYS
        .iter()
        .map(|(key, what)| format!("{key}: {}", without_asides(what.split("; default").next().unwrap_or(what))))
        .collect();
    format!(
        "A system preset ({}), `list`, or `custom:KEY=VALUE,…` with the keys {} (docs/systems.md).",
        presets.join(", "),
        keys.join("; ")
    )
}

/// `text` without its parenthesised asides (` (…)`, nested ones too); an
/// interval such as `(0, 100]` stays.
fn without_asides(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let open = c == '(' && depth == 0 && rest.find(')').is_some_and(|close| !rest[..close].contains(']'));
        if open || (c == '(' && depth > 0) {
            depth += 1;
        } else if c == ')' && depth > 0 {
            depth -= 1;
        } else if depth == 0 {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ").replace(" ,", ",")
}

/// `--nodes`' help where the flow engine takes `flow` nodes: the steady
/// engine's beside it.
pub fn nodes_help(what: &str, flow: IntRange) -> String {
    use commlab_api::system::{ranges, STEADY_NODES};
    format!("{what} ({}; {} with --engine steady).", ranges(flow), ranges(STEADY_NODES))
}

/// The flag of a System's field.
fn flag(e: &ApiError) -> ArgError {
    let flag = match e.field.as_str() {
        "hosts" => "--nodes".to_owned(),
        f => format!("--{f}"),
    };
    (flag, e.to_string())
}

/// The release of `--nccl-version` (none: the current one).
///
/// # Errors
/// `--nccl-version`: an unknown release.
pub fn version(text: Option<&str>) -> Result<Version, ArgError> {
    System::version(text).map_err(|e| flag(&e))
}

/// `--system ID --nodes N --nccl-version V --env NAME=VALUE …`, nodes
/// within `range`.
///
/// # Errors
/// The flag at fault and what it accepts.
pub fn parse(id: &str, nodes: u32, version: Option<&str>, env: &[String], range: IntRange) -> Result<System, ArgError> {
    let system = System::parse(id, nodes, self::version(version)?, range).map_err(|e| flag(&e))?;
    with_env(system, env)
}

/// `system` under the settings of `--env` (each `NAME=VALUE`).
///
/// # Errors
/// `--env`: an unknown setting or a value NCCL's release refuses.
pub fn with_env(system: System, env: &[String]) -> Result<System, ArgError> {
    system.with_env(&env.join("\n")).map_err(|e| flag(&e))
}

/// `--env`'s help: the settings read, each with what it accepts.
pub fn env_help() -> String {
    use commlab_core::libraries::nccl_env::{ACCEPTED, NAMES};
    let names: Vec<String> = NAMES.iter().zip(ACCEPTED).map(|(n, what)| format!("{n} ({what})")).collect();
    format!(
        "One of NCCL's settings as NAME=VALUE, repeatable, read as the NCCL release given reads it: {}. NCCL's pick then runs under them (docs/systems.md).",
        names.join("; ")
    )
}

/// The node type of `--system` (for the nodes a run's p gives).
///
/// # Errors
/// `--system`: no such preset, a custom description out of range.
pub fn node_type(id: &str) -> Result<commlab_core::systems::Preset, ArgError> {
    commlab_api::system::node_type(id).map_err(|e| flag(&e))
}

/// The nodes of `p` ranks of `preset`.
///
/// # Errors
/// `--p`: not a whole number of its nodes.
pub fn nodes_of(preset: &commlab_core::systems::Preset, p: u32) -> Result<u32, ArgError> {
    if p > 0 && p % preset.gpus == 0 {
        Ok(p / preset.gpus)
    } else {
        Err(("--p".to_owned(), format!("p = {p} is not a whole number of {}-GPU {} nodes", preset.gpus, preset.id)))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[derive(Parser)]
    struct Predict {
        #[command(flatten)]
        args: crate::predict::PredictArgs,
    }

    /// Any System (every preset × nodes × release, and random custom
    /// descriptions) goes to `predict`'s flags and comes back unchanged.
    #[test]
    fn any_system_goes_through_its_flags_unchanged() {
        for s in commlab_api::system::examples(5, 400) {
            let flags = s.flags();
            let parsed = Predict::try_parse_from(std::iter::once("predict".to_owned()).chain(flags.clone()))
                .unwrap_or_else(|e| panic!("{flags:?}: {e}"));
            assert_eq!(parsed.args.system().unwrap(), s, "{flags:?}");
        }
        // A refusal names its flag.
        let bad = Predict::try_parse_from(["predict", "--system", "custom:gpus=8,nics=3"]).unwrap();
        assert_eq!(bad.args.system().unwrap_err().0, "--system");
        let bad = Predict::try_parse_from(["predict", "--system", "p4d", "--nccl-version", "1.0"]).unwrap();
        assert_eq!(bad.args.system().unwrap_err().0, "--nccl-version");
    }
}
