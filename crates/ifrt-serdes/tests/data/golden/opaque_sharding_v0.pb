
xla::ifrt::OpaqueSharding

