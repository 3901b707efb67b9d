//! Generates only the tonic *server* for `vtgateservice.Vitess`; the message types are reused
//! from `vitess_cdc_core::proto` so the fake and the client share one definition.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?);
    let proto_dir = "../../proto";
    let mut cfg = tonic_prost_build::configure()
        .build_client(false)
        .build_server(true);
    for pkg in ["vtrpc", "topodata", "query", "binlogdata", "vtgate"] {
        cfg = cfg.extern_path(
            format!(".{pkg}"),
            format!("::vitess_cdc_core::proto::{pkg}"),
        );
    }
    cfg.compile_protos(
        &[format!("{proto_dir}/vtgateservice.proto")],
        &[proto_dir.to_string()],
    )?;
    println!("cargo:rerun-if-changed={proto_dir}");
    Ok(())
}
