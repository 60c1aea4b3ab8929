;; Collecting misplaced items (medium): gather a sock and a gym shoe on the table.
(define (problem collect_misplaced_items_0)
    (:domain igibson)
    (:objects
        sock_1 gym_shoe_1 - movable
        table_1 bed_1 sofa_1 - object
    )
    (:init
        (ontop sock_1 bed_1)
        (nextto gym_shoe_1 sofa_1)
    )
    (:goal
        (and
            (ontop sock_1 table_1)
            (ontop gym_shoe_1 table_1)
        )
    )
)
