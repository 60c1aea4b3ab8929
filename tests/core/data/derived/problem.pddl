(define (problem relay-4) (:domain relay)
  (:objects s a b c - node)
  (:init (source s) (link s a) (link a b) (powered c))
  (:goal (and (powered b) (not (powered c)) (cut-off c) (reach b))))
