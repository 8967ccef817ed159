//! The pipeline view: the chain pipeline's space-time diagram.
//!
//! - [`params`]: the view's state, URL fields and engine request;
//! - [`view`]: the component.

pub mod params;
pub mod view;

use super::Page;
use leptos::prelude::*;

/// The view on the page.
pub const PAGE: Page = |params, dark| view! { <view::PipelineView params=params dark=dark /> }.into_any();
