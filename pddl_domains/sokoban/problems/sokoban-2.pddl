;; 3x3 room, one stone
;;   #####
;;   #@  #
;;   # $ #
;;   #  .#
;;   #####
(define (problem sokoban-2)
  (:domain sokoban)
  (:objects
    pos-1-1 pos-1-2 pos-1-3 pos-2-1 pos-2-2 pos-2-3 pos-3-1 pos-3-2 pos-3-3 - location
    stone1 - stone)
  (:init
    (at-robot pos-1-1)
    (at stone1 pos-2-2) (occupied pos-2-2)
    (is-goal pos-3-3)
    (move-dir pos-1-1 pos-2-1 down)
    (move-dir pos-1-1 pos-1-2 right)
    (move-dir pos-1-2 pos-2-2 down)
    (move-dir pos-1-2 pos-1-1 left)
    (move-dir pos-1-2 pos-1-3 right)
    (move-dir pos-1-3 pos-2-3 down)
    (move-dir pos-1-3 pos-1-2 left)
    (move-dir pos-2-1 pos-1-1 up)
    (move-dir pos-2-1 pos-3-1 down)
    (move-dir pos-2-1 pos-2-2 right)
    (move-dir pos-2-2 pos-1-2 up)
    (move-dir pos-2-2 pos-3-2 down)
    (move-dir pos-2-2 pos-2-1 left)
    (move-dir pos-2-2 pos-2-3 right)
    (move-dir pos-2-3 pos-1-3 up)
    (move-dir pos-2-3 pos-3-3 down)
    (move-dir pos-2-3 pos-2-2 left)
    (move-dir pos-3-1 pos-2-1 up)
    (move-dir pos-3-1 pos-3-2 right)
    (move-dir pos-3-2 pos-2-2 up)
    (move-dir pos-3-2 pos-3-1 left)
    (move-dir pos-3-2 pos-3-3 right)
    (move-dir pos-3-3 pos-2-3 up)
    (move-dir pos-3-3 pos-3-2 left))
  (:goal (and (occupied pos-3-3))))
