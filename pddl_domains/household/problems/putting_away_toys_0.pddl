;; Putting away toys (medium/hard): put two toys lying on the floor into the
;; toy box and close it again.
(define (problem putting_away_toys_0)
    (:domain igibson)
    (:objects
        toy_1 toy_2 - movable
        toy_box_1 - container
        floor_1 table_1 - object
    )
    (:init
        (ontop toy_1 floor_1)
        (nextto toy_2 table_1)
        (not (open toy_box_1))
    )
    (:goal
        (and
            (inside toy_1 toy_box_1)
            (inside toy_2 toy_box_1)
            (not (open toy_box_1))
        )
    )
)
