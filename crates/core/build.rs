//! Tells the core's tests whether the shared corpora are beside the project
//! (`no_shared_data` cfg, as the root package's build script does).

include!("../../build/shared_data.rs");

fn main() {
    mark_shared_data(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    );
}
