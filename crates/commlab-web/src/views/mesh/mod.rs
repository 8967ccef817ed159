//! The barrier mesh view: a barrier on a mesh with broken links.
//!
//! - [`params`]: the view's state, URL fields and engine request;
//! - [`view`]: the component.

pub mod params;
pub mod view;

use super::Page;
use leptos::prelude::*;

/// The view on the page.
pub const PAGE: Page = |params, dark| view! { <view::MeshView params=params dark=dark /> }.into_any();
