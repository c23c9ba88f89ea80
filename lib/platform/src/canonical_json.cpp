// canonical_json: to be written
