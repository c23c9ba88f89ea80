// approval_hash: to be written
