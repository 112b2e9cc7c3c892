#pragma once
// The designer as the GUI tests open it (shown at 1200 × 800, exposed, with `path` loaded), and
// the user's gestures on it: a palette drop through drag-and-drop events, a drag through mouse events.
#include "Designer.h"
#include "DesignerScene.h"
#include "DesignerView.h"
#include "Palette.h"

#include <QMimeData>
#include <QLineEdit>
#include <QAbstractSpinBox>
#include <QtTest>
#include <memory>

namespace hips::test {

inline const QString kDefaultTopology = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

inline void openShownDesigner(std::unique_ptr<Designer>& d, const QString& path = kDefaultTopology) {
    d = std::make_unique<Designer>();
    d->resize(1200, 800);
    d->show();
    QVERIFY(QTest::qWaitForWindowExposed(d.get()));
    QString error;
    QVERIFY2(d->openFile(path, &error), qPrintable(error));
}

// Drops `item` from the palette at a scene position, through the view's viewport as a user would.
inline void dropFromPalette(Designer& d, PaletteItem item, QPointF scenePos) {
    auto* palette = d.findChild<Palette*>();
    QListWidgetItem* entry = nullptr;
    for (int i = 0; i < palette->count(); ++i)
        if (palette->item(i)->data(Qt::UserRole).toString() == paletteItemName(item)) entry = palette->item(i);
    QVERIFY(entry);
    QMimeData* mime = palette->model()->mimeData({palette->indexFromItem(entry)});
    QVERIFY(mime->hasFormat(DesignerScene::kPaletteMime));
    QWidget* viewport = d.view()->viewport();
    const QPoint at = d.view()->mapFromScene(scenePos);
    QDragEnterEvent enter(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &enter);
    QDragMoveEvent move(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &move);
    QVERIFY(move.isAccepted());
    QDropEvent drop(QPointF(at), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &drop);
    delete mime;
}

inline QPointF centerOf(Designer& d, const ElementRef& ref) {
    DesignerItem* item = d.scene()->item(ref);
    return item ? item->sceneBoundingRect().center() : QPointF();
}

// Near an element's top-left corner: on a party's or host's title, clear of what it holds.
inline QPointF titleOf(Designer& d, const ElementRef& ref) {
    DesignerItem* item = d.scene()->item(ref);
    return item ? item->sceneBoundingRect().topLeft() + QPointF(12, 6) : QPointF();
}

inline void click(Designer& d, QPointF scenePos) {
    QTest::mouseClick(d.view()->viewport(), Qt::LeftButton, Qt::NoModifier, d.view()->mapFromScene(scenePos));
}

// Replaces a field's text by typing, as a user does, and presses Return.
inline void typeInto(QWidget* field, const QString& text) {
    field->setFocus();
    if (auto* line = qobject_cast<QLineEdit*>(field)) line->selectAll();
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(field)) spin->selectAll();
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
}

// A press, a few moves and a release on the viewport: a real drag.
inline void drag(Designer& d, QPointF fromScene, QPointF toScene) {
    QWidget* viewport = d.view()->viewport();
    const QPoint from = d.view()->mapFromScene(fromScene), to = d.view()->mapFromScene(toScene);
    QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, from);
    for (int i = 1; i <= 5; ++i) {
        QMouseEvent move(QEvent::MouseMove, from + (to - from) * i / 5, viewport->mapToGlobal(from + (to - from) * i / 5), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &move);
    }
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, to);
}

}  // namespace hips::test
