
xla::ifrt::Shape
€