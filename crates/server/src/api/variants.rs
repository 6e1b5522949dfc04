//! The variants the page offers: the list, grouped by family, and one variant's rules.

use super::*;

fn board_json(v: &Variant) -> Value {
    json!({
        "width": v.geometry.width(),
        "height": v.geometry.height(),
        "squares": match v.geometry.squares_kind() { Squares::All => "all", Squares::Dark => "dark" },
    })
}

fn variant_summary(v: &Variant) -> Value {
    json!({
        "id": v.id, "name": v.name, "family": v.family, "description": v.description,
        "aliases": v.aliases, "board": board_json(v),
    })
}

pub async fn variants(State(app): App) -> AppResult<Json<Value>> {
    let mut variants = app
        .catalogue
        .variants()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    variants.sort_by_key(catalogue_order);
    let families: Vec<Value> = FAMILIES
        .iter()
        .map(|(id, name)| json!({"id": id, "name": name}))
        .chain(
            variants
                .iter()
                .map(|v| v.family.clone())
                .filter(|f| !FAMILIES.iter().any(|(id, _)| id == f))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|f| json!({"id": f, "name": family_description(&f)})),
        )
        .collect();
    Ok(Json(json!({
        "families": families,
        "variants": variants.iter().map(variant_summary).collect::<Vec<_>>(),
    })))
}

pub async fn variant(State(app): App, Path(id): Path<String>) -> AppResult<Json<Value>> {
    let v = app
        .catalogue
        .get(&id)
        .map_err(|e| ApiError::not_found(e.to_string()))?;
    let g = &v.geometry;
    let squares: Vec<Value> = g
        .all_squares()
        .iter()
        .map(|&sq| {
            let (x, y) = g.coords(sq);
            json!({"name": g.name(sq), "x": x, "y": y})
        })
        .collect();
    let start_fen = with_rules!(v.clone(), |rules| damspel_notation::write_fen(
        &rules.variant().geometry,
        &Position::start(&rules)
    ));
    let mut out = variant_summary(&v);
    out["rules"] =
        serde_json::to_value(v.rules_page()).map_err(|e| ApiError::internal(e.to_string()))?;
    out["start_fen"] = json!(start_fen);
    out["squares"] = json!(squares);
    out["family_name"] = json!(family_description(&v.family));
    Ok(Json(out))
}
