SELECT source_url, target_url, decision FROM link_decisions;
