//! The network's URL fields, shared by every view that can run on a network
//! (the Schedule view, the Chooser): `net`, `bw`, `lat`, `bw2`, `lat2`,
//! `breaks`, `brate`, `bseed`, `nicw`, `place` (`docs/links.md`). A view's state
//! implements [`OnNetwork`] and lists its own fields inside
//! [`with_network_fields!`], which appends these.

use commlab_api::network::NetRequest;

/// A view state that can run on a network.
pub trait OnNetwork {
    /// Whether it runs on the network.
    fn on_network(&self) -> bool;
    /// Switches the network on or off.
    fn set_on_network(&mut self, on: bool);
    /// The network (kept when switched off, so switching back restores it).
    fn network(&self) -> &NetRequest;
    /// The network, to change.
    fn network_mut(&mut self) -> &mut NetRequest;
    /// The network a link without `net` has.
    fn default_network() -> NetRequest {
        NetRequest::default()
    }
    /// The user switched the network on or off (after [`OnNetwork::set_on_network`]):
    /// what else changes with it (the Schedule view's preset).
    fn switched(&mut self, _on: bool) {}
}

/// Implements [`OnNetwork`] for a state whose switch and network are fields
/// at `$($at).*` (`on_network`, `network`), with its default network.
macro_rules! impl_on_network {
    ($state:ty, [$($at:ident).*], $default:expr, $switched:ident) => {
        $crate::net_fields::impl_on_network!(@impl $state, [$($at).*], $default,
            fn switched(&mut self, on: bool) {
                Self::$switched(self, on);
            }
        );
    };
    ($state:ty, [$($at:ident).*], $default:expr) => {
        $crate::net_fields::impl_on_network!(@impl $state, [$($at).*], $default,);
    };
    (@impl $state:ty, [$($at:ident).*], $default:expr, $($extra:item)?) => {
        impl $crate::net_fields::OnNetwork for $state {
            fn on_network(&self) -> bool {
                self.$($at.)*on_network
            }
            fn set_on_network(&mut self, on: bool) {
                self.$($at.)*on_network = on;
            }
            fn network(&self) -> &commlab_api::network::NetRequest {
                &self.$($at.)*network
            }
            fn network_mut(&mut self) -> &mut commlab_api::network::NetRequest {
                &mut self.$($at.)*network
            }
            fn default_network() -> commlab_api::network::NetRequest {
                $default
            }
            $($extra)?
        }
    };
}
pub(crate) use impl_on_network;

/// The network's keys mean nothing without `net`: a valid one is ignored
/// (a notice is kept only for values that are refused). A link older than
/// the NIC window (`v` ≤ 3) without `nicw` runs with no window, as it was
/// made. Call from the view's `finish`.
pub fn finish<S: OnNetwork>(state: &mut S, read: &[&'static str], link: &crate::codec::Link) {
    if !state.on_network() {
        *state.network_mut() = S::default_network();
    } else if link.before_nic_window() && !read.contains(&"nicw") {
        state.network_mut().nic_window = 0;
    }
}

/// The network request the view runs, if any.
pub fn request<S: OnNetwork>(state: &S) -> Option<NetRequest> {
    state.on_network().then(|| state.network().clone())
}

/// One link class's bandwidth or latency: `bw`, `lat`, `bw2`, `lat2`.
macro_rules! net_class {
    ($name:literal, $field:ident, $range:expr) => {
        $crate::codec::Field {
            name: $name,
            kind: $crate::codec::Kind::Custom {
                write: |p| {
                    if $crate::net_fields::OnNetwork::on_network(p) {
                        $crate::net_fields::OnNetwork::network(p).$field.map(|v| format!("{v}"))
                    } else {
                        None
                    }
                },
                read: |p, text| {
                    let range = commlab_core::limits::RealRange { name: $name, ..$range };
                    let v = text
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|v| range.contains(*v))
                        .ok_or_else(|| range.to_string())?;
                    $crate::net_fields::OnNetwork::network_mut(p).$field = Some(v);
                    Ok(())
                },
                used: "the topology's default",
            },
        }
    };
}
pub(crate) use net_class;

/// `&[the view's fields…, then the network's]` for a `ViewState::FIELDS`.
macro_rules! with_network_fields {
    ($($field:expr),* $(,)?) => {
        &[
            $($field,)*
            $crate::codec::Field {
                name: "net",
                kind: $crate::codec::Kind::Custom {
                    write: |p| {

                        $crate::net_fields::OnNetwork::on_network(p).then(|| $crate::net_fields::OnNetwork::network(p).topology.to_string())
                    },
                    read: |p, text| {

                        $crate::net_fields::OnNetwork::network_mut(p).topology = text.parse()?;
                        $crate::net_fields::OnNetwork::set_on_network(p, true);
                        Ok(())
                    },
                    used: "no network",
                },
            },
            $crate::net_fields::net_class!("bw", bandwidth, commlab_core::limits::net::BANDWIDTH),
            $crate::net_fields::net_class!("lat", latency, commlab_core::limits::net::LATENCY),
            $crate::net_fields::net_class!("bw2", bandwidth2, commlab_core::limits::net::BANDWIDTH),
            $crate::net_fields::net_class!("lat2", latency2, commlab_core::limits::net::LATENCY),
            $crate::codec::Field {
                name: "breaks",
                kind: $crate::codec::Kind::Custom {
                    write: |p| {

                        ($crate::net_fields::OnNetwork::on_network(p) && !$crate::net_fields::OnNetwork::network(p).breaks.is_empty()).then(|| $crate::net_fields::OnNetwork::network(p).breaks.clone())
                    },
                    read: |p, text| {

                        let list = commlab_core::net::topology::parse_breaks(text)?;
                        commlab_core::limits::net::BREAK_LIST.check(list.len() as u64).map_err(|e| e.to_string())?;
                        text.trim().clone_into(&mut $crate::net_fields::OnNetwork::network_mut(p).breaks);
                        Ok(())
                    },
                    used: "no named breaks",
                },
            },
            $crate::codec::Field {
                name: "brate",
                kind: $crate::codec::Kind::Real(
                    commlab_core::limits::RealRange { name: "brate", ..commlab_core::limits::net::RATE },
                    |p| {  $crate::net_fields::OnNetwork::network(p).break_rate },
                    |p, v| {  $crate::net_fields::OnNetwork::network_mut(p).break_rate = v },
                ),
            },
            $crate::codec::Field {
                name: "bseed",
                kind: $crate::codec::Kind::Int(
                    commlab_core::limits::IntRange { name: "bseed", ..commlab_core::limits::EXACT_SEED },
                    |p| {  $crate::net_fields::OnNetwork::network(p).seed },
                    |p, v| {  $crate::net_fields::OnNetwork::network_mut(p).seed = v },
                ),
            },
            $crate::codec::Field {
                name: "nicw",
                kind: $crate::codec::Kind::Int(
                    commlab_core::limits::IntRange { name: "nicw", ..commlab_core::limits::net::WINDOW },
                    |p| { u64::from($crate::net_fields::OnNetwork::network(p).nic_window) },
                    |p, v| { $crate::net_fields::OnNetwork::network_mut(p).nic_window = v as u32 },
                ),
            },
            $crate::codec::Field {
                name: "place",
                kind: $crate::codec::Kind::Custom {
                    write: |p| {

                        ($crate::net_fields::OnNetwork::on_network(p) && $crate::net_fields::OnNetwork::network(p).placement != commlab_core::net::Placement::Identity).then(|| $crate::net_fields::OnNetwork::network(p).placement.to_string())
                    },
                    read: |p, text| {

                        $crate::net_fields::OnNetwork::network_mut(p).placement = text.trim().parse()?;
                        Ok(())
                    },
                    used: "identity",
                },
            },
        ]
    };
}
pub(crate) use with_network_fields;
