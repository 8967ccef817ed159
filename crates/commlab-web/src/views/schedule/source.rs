//! Where the Schedule view's schedule comes from: a generated collective
//! (its fields), or a GOAL file opened, dropped or pasted and kept in this
//! browser ([`crate::controls::file_source`]).

use super::params::ScheduleParams;
use super::run::{OpenedFile, Run, Status};
use crate::codec::Notice;
use crate::controls::file_source::{self, KeptFile};
use crate::controls::number_field::{int_range, NumberField};
use crate::controls::store;
use commlab_api::schedule::{GenerateRequest, BYTES, MESH, NVLS, NVLS_COLLECTIVES, P};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::limits;

use leptos::prelude::*;
use std::rc::Rc;

/// The collectives offered, with their labels.
const COLLECTIVE_LABELS: [(&str, &str); 11] = [
    ("reduce", "Binomial reduce (LCT: clear lowest bit)"),
    ("broadcast", "Binomial broadcast (LCT)"),
    ("allreduce", "Allreduce: reduce + broadcast (LCT)"),
    ("allreduce-butterfly", "Allreduce: butterfly"),
    ("reduce-bst", "Binomial reduce (BST: clear highest bit, Schedgen's)"),
    ("broadcast-bst", "Binomial broadcast (BST)"),
    ("allreduce-bst", "Allreduce: reduce + broadcast (BST)"),
    ("pipeline", "Pipelined chain reduction (m pieces)"),
    ("dissemination", "Dissemination barrier on p ranks"),
    ("barrier", "Barrier on a mesh (fault-free pattern)"),
    ("swizzle", "CommSwizzle: every rank's steps"),
];

/// Whether `id` is a pipelined chooser algorithm (`broadcast/chain`): it takes a piece count.
fn pipelined_chooser(id: &str) -> bool {
    id.split_once('/').is_some_and(|(c, a)| {
        c.parse::<commlab_core::choose::Collective>()
            .is_ok_and(|c| a == NVLS || commlab_core::choose::of(c).any(|x| x.id == a && x.pipelined))
    })
}

/// The opened file's handling: open, restore, forget.
#[derive(Clone, Copy)]
pub struct FileSource {
    run: Run,
    /// Its kept copy.
    pub kept: KeptFile,
}

impl FileSource {
    /// The file source of `run`; restores the kept file when the link shows one.
    pub fn new(run: Run, notices: RwSignal<Vec<Notice>>) -> FileSource {
        let source = FileSource { run, kept: KeptFile::new(store::SCHEDULE) };
        let params = run.params;
        if params.with_untracked(|p| p.file) {
            let found = move |name, text| {
                run.file.set(Some(OpenedFile { name, text: Rc::new(text) }));
                run.run_file();
            };
            let missing = move |error: Option<String>| {
                let why = error.map_or_else(
                    || "this link shows an opened GOAL file, but none is kept in this browser; showing a generated collective".to_owned(),
                    |e| format!("the opened file could not be restored: {e}"),
                );
                notices.update(|n| n.push(Notice::new("src", why)));
                params.update(|p| p.file = false);
            };
            source.kept.restore(found, missing);
        }
        source
    }

    /// Simulates `text` (named `name`) and keeps it.
    pub fn open_text(self, name: String, text: String) {
        let text = Rc::new(text);
        self.run.file.set(Some(OpenedFile { name: name.clone(), text: text.clone() }));
        self.kept.keep(name, text);
        // A new schedule opens whole: the previous one's zoom, first rank
        // and scrubber instant mean nothing in it.
        let shown_before = self.run.params.with_untracked(|p| p.window.is_some() || p.first_rank > 0 || p.at.is_some());
        if shown_before {
            self.run.params.update(|p| {
                p.window = None;
                p.first_rank = 0;
                p.at = None;
            });
        }
        if self.run.params.with_untracked(|p| p.file) {
            self.run.run_file();
        } else {
            self.run.shown.set(None);
            self.run.params.update(|p| p.file = true);
        }
    }

    /// Reads an opened or dropped file.
    pub fn open(self, f: web_sys::File) {
        self.run.status.set(Status::Running("reading the file".into(), 0, 0));
        file_source::read(f, move |name, text| match text {
            Ok(t) => self.open_text(name, t),
            Err(e) => self.run.status.set(Status::Failed(format!("{name}: {e}"), true)),
        });
    }

    /// Forgets the kept file and goes back to a generated collective.
    pub fn forget(self) {
        let (file, params) = (self.run.file, self.run.params);
        self.kept.forget(move || {
            file.set(None);
            params.update(|p| p.file = false);
        });
    }
}

/// The file input, the paste box and what is kept.
#[component]
pub fn FileFields(
    /// The view's file source.
    source: FileSource,
) -> impl IntoView {
    let paste = RwSignal::new(String::new());
    let (kept, file) = (source.kept.note, source.run.file);
    view! {
        <div class="field file-field">
            <label for="goal-file">"Open a GOAL file (.goal, .gz; or drop it on the view)"</label>
            <input id="goal-file" type="file" accept=".goal,.txt,.gz" data-testid="goal-file"
                on:change=file_source::on_pick(move |f| source.open(f)) />
        </div>
        <div class="field paste-field">
            <label for="goal-text">"Or paste GOAL text"</label>
            <textarea id="goal-text" rows="4" spellcheck="false" data-testid="goal-text" prop:value=move || paste.get()
                on:input=move |ev| paste.set(event_target_value(&ev))></textarea>
            <button type="button" data-testid="simulate-pasted" disabled=move || paste.with(String::is_empty)
                on:click=move |_| source.open_text("pasted.goal".into(), paste.get_untracked())>"Simulate the pasted text"</button>
        </div>
        {move || (!kept.with(String::is_empty)).then(|| view! { <p class="kept-note" data-testid="kept-note" role="status">{move || kept.get()}
            {move || file.with(Option::is_some).then(|| view! { " " <button type="button" data-testid="forget-file" on:click=move |_| source.forget()>"Forget"</button> })}</p> })}
    }
}

/// The opened file's line, or the generated collective's fields.
#[component]
pub fn SourceControls(
    /// The view's state.
    params: RwSignal<ScheduleParams>,
    /// The opened file.
    file: RwSignal<Option<OpenedFile>, LocalStorage>,
) -> impl IntoView {
    move || {
        if params.with(|p| p.file) {
            view! {
                <p class="schedule-file" data-testid="schedule-file">
                    {move || file.with(|f| f.as_ref().map_or_else(|| "No file opened yet.".to_owned(), |f| format!("Simulating {} ({})", f.name, commlab_plot::format_bytes(f.text.len() as u64))))}
                </p>
                <button type="button" data-testid="use-generated" on:click=move |_| params.update(|p| p.file = false)>"Use a generated collective"</button>
            }
            .into_any()
        } else {
            view! { <CollectiveSelect params=params /> <GeneratedFields params=params /> <BarrierFields params=params /> <SwizzleFields params=params /> }.into_any()
        }
    }
}

/// A field's value and setter on the generated collective.
fn gen_field(
    params: RwSignal<ScheduleParams>,
    get: fn(&GenerateRequest) -> f64,
    set: fn(&mut GenerateRequest, f64),
) -> (Signal<f64>, Callback<f64>) {
    (
        Signal::derive(move || params.with(|p| get(&p.generate))),
        Callback::new(move |v: f64| params.update(|p| set(&mut p.generate, v))),
    )
}

/// Whether the generated collective is one of `ids`.
fn is(
    params: RwSignal<ScheduleParams>,
    ids: &'static [&'static str],
) -> impl Fn() -> bool + Copy + Send + Sync + 'static {
    move || params.with(|p| ids.contains(&p.generate.collective.as_str()))
}

#[component]
fn CollectiveSelect(params: RwSignal<ScheduleParams>) -> impl IntoView {
    let collective = move || params.with(|p| p.generate.collective.clone());
    view! {
        <div class="field">
            <label for="coll">"Collective"</label>
            <select id="coll" data-testid="collective" prop:value=collective on:change=move |ev| {
                let v = event_target_value(&ev);
                params.update(|p| p.generate.collective = v);
            }>
                {COLLECTIVE_LABELS.iter().map(|&(id, label)| view! { <option value=id selected=move || collective() == id>{label}</option> }).collect_view()}
                {commlab_core::choose::Collective::ALL.iter().map(|&c| view! {
                    <optgroup label=format!("Chooser: {c}")>
                        {commlab_core::choose::of(c).map(|a| {
                            let id = format!("{c}/{}", a.id);
                            let selected = id.clone();
                            view! { <option value=id.clone() selected=move || collective() == selected>{format!("{c}: {}", a.id)}</option> }
                        }).collect_view()}
                        {NVLS_COLLECTIVES.contains(&c).then(|| {
                            let id = format!("{c}/{NVLS}");
                            let selected = id.clone();
                            view! { <option value=id.clone() selected=move || collective() == selected>{format!("{c}: NVLS (a rank on each NVSwitch; nodes:NxG)")}</option> }
                        })}
                    </optgroup>
                }).collect_view()}
            </select>
        </div>
    }
}

/// Ranks, channels, pieces and the size: the fields most collectives share.
#[component]
fn GeneratedFields(params: RwSignal<ScheduleParams>) -> impl IntoView {
    let collective = move || params.with(|p| p.generate.collective.clone());
    let chooser = move || collective().contains('/');
    let (p, set_p) = gen_field(params, |g| g.p as f64, |g, v| g.p = v as u64);
    let (channels, set_channels) = gen_field(params, |g| f64::from(g.channels), |g, v| g.channels = v as u32);
    let (pieces, set_pieces) = gen_field(params, |g| g.pieces as f64, |g, v| g.pieces = v as u64);
    let (bytes, set_bytes) = gen_field(params, |g| g.bytes as f64, |g, v| g.bytes = v as u64);
    // One size field, its label the collective's (built anew only when the label changes).
    let bytes_label = Memo::new(move |_| match collective().as_str() {
        _ if chooser() => "Vector size n (bytes per rank)",
        "pipeline" => "Vector size n (bytes, cut into m pieces)",
        "swizzle" => "Bytes per tile",
        _ => "Bytes per message",
    });
    view! {
        <Show when=is(params, &["reduce", "broadcast", "allreduce", "allreduce-butterfly", "reduce-bst", "broadcast-bst", "allreduce-bst", "pipeline", "dissemination"])>
            <NumberField id="p" label="Ranks p" integer=true range=int_range(P) value=p on_change=set_p />
        </Show>
        <Show when=chooser>
            <NumberField id="p-chooser" label="Ranks p" integer=true range=int_range(commlab_api::schedule::CHOOSER_P) value=p on_change=set_p />
            <NumberField id="ch" label="Channels (the data split; channel c sends on NIC c, on nodes over rail c)" integer=true range=int_range(limits::net::CHANNELS) slider=limits::net::CHANNELS_SLIDER
                value=channels on_change=set_channels />
        </Show>
        <Show when=move || is(params, &["pipeline"])() || pipelined_chooser(&collective())>
            <NumberField id="pieces" label="Pieces m" integer=true range=int_range(limits::PIECES) slider=limits::schedule::PIECES_SLIDER
                value=pieces on_change=set_pieces />
        </Show>
        // A chooser algorithm's size is its vector (all-to-all: each rank's send buffer), cut into messages by the plan.
        {move || { let label = bytes_label.get(); view! {
            <NumberField id="bytes" label=label unit="B" integer=true range=int_range(BYTES) slider=limits::BYTES_SLIDER value=bytes on_change=set_bytes />
        } }}
    }
}

#[component]
fn BarrierFields(params: RwSignal<ScheduleParams>) -> impl IntoView {
    let (mesh, set_mesh) = gen_field(params, |g| f64::from(g.mesh), |g, v| g.mesh = v as u32);
    let (tile, set_tile) = gen_field(params, |g| f64::from(g.tile), |g, v| g.tile = v as u32);
    view! {
        <Show when=is(params, &["barrier"])>
            <NumberField id="mesh" label="Mesh side" integer=true range=int_range(MESH) value=mesh on_change=set_mesh />
            <p class="hint" data-testid="barrier-routing-note">"The pattern is the fault-free one: with no broken link both routing rules (the paper's and shortest) send every message along its Manhattan route, so the rule plays no part here. Break links in the barrier mesh view to see them differ."</p>
            <div class="field">
                <label for="alg">"Barrier algorithm"</label>
                <select id="alg" prop:value=move || params.with(|p| p.generate.algorithm.clone()) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    params.update(|p| p.generate.algorithm = v);
                }>
                    {Algorithm::ALL.iter().map(|a| { let id = a.id(); view! { <option value=id selected=move || params.with(|p| p.generate.algorithm == id)>{id}</option> } }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="enc">"Encoding"</label>
                <select id="enc" prop:value=move || params.with(|p| p.generate.encoding.clone()) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    params.update(|p| p.generate.encoding = v);
                }>
                    {Encoding::ALL.iter().map(|e| { let id = e.id(); view! { <option value=id selected=move || params.with(|p| p.generate.encoding == id)>{id}</option> } }).collect_view()}
                </select>
            </div>
            <NumberField id="tile" label="Tile side (two-layer)" integer=true range=int_range(limits::mesh_view::TILE) value=tile on_change=set_tile />
        </Show>
    }
}

#[component]
fn SwizzleFields(params: RwSignal<ScheduleParams>) -> impl IntoView {
    let (ranks, set_ranks) = gen_field(params, |g| f64::from(g.grid.2), |g, v| g.grid.2 = v as u32);
    let (rows, set_rows) = gen_field(params, |g| f64::from(g.grid.0), |g, v| g.grid.0 = v as u32);
    let (cols, set_cols) = gen_field(params, |g| f64::from(g.grid.1), |g, v| g.grid.1 = v as u32);
    let (core_rows, set_core_rows) = gen_field(params, |g| f64::from(g.cores.0), |g, v| g.cores.0 = v as u32);
    let (core_cols, set_core_cols) = gen_field(params, |g| f64::from(g.cores.1), |g, v| g.cores.1 = v as u32);
    view! {
        <Show when=is(params, &["swizzle"])>
            <NumberField id="grid-rank" label="Ranks" integer=true range=int_range(limits::RANKS) value=ranks on_change=set_ranks />
            <NumberField id="grid-row" label="Tile rows" integer=true range=int_range(limits::GRID_EXTENT) slider=limits::GRID_SLIDER value=rows on_change=set_rows />
            <NumberField id="grid-col" label="Tile columns" integer=true range=int_range(limits::GRID_EXTENT) slider=limits::GRID_SLIDER value=cols on_change=set_cols />
            <NumberField id="cores-row" label="Core rows" integer=true range=int_range(limits::CORE_EXTENT) slider=limits::schedule::CORES_SLIDER value=core_rows on_change=set_core_rows />
            <NumberField id="cores-col" label="Core columns" integer=true range=int_range(limits::CORE_EXTENT) slider=limits::schedule::CORES_SLIDER value=core_cols on_change=set_core_cols />
            <label class="check"><input type="checkbox" prop:checked=move || params.with(|p| !p.generate.read)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.generate.read = !on); } />" remote writes (else reads)"</label>
            <label class="check"><input type="checkbox" prop:checked=move || params.with(|p| p.generate.shift)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.generate.shift = on); } />" rank shift"</label>
        </Show>
    }
}
